"""Checks that ask for dice: every physical route gives the engine's exact distribution,
and bad readings are refused without losing anything."""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Mapping
from fractions import Fraction

import pytest

from mechanics import d5, d5_tables, d6pool, decibel
from mechanics.check import DiceCheck
from mechanics.check_d5 import D5Check
from mechanics.check_dphi import DphiCheck
from mechanics.check_pools import D6PoolCheck, DecibelCheck, PeupfudgeCheck, d6_as_fudge
from mechanics.peupfudge import Action
from mechanics.reading import Need, Reading, ReadingRefused


def explore(
    check: DiceCheck, faces: Mapping[str, Mapping[int, Fraction]], floor: Fraction
) -> tuple[dict[int, Fraction], Fraction]:
    """Throw every face (weighted) one die at a time until resolved.

    Returns the distribution of resolved values and the probability mass left
    unexplored below ``floor`` (branches rarer than that are dropped).
    """
    result: dict[int, Fraction] = {}
    lost = Fraction(0)
    frontier: list[tuple[DiceCheck, Fraction]] = [(check, Fraction(1))]
    while frontier:
        current, p = frontier.pop()
        need = current.need()
        if need is None:
            value = current.resolve().value
            assert isinstance(value, int)
            result[value] = result.get(value, Fraction(0)) + p
            continue
        for face, w in faces[need.die].items():
            q = p * w
            if q < floor:
                lost += q
            else:
                frontier.append((current.accept(Reading(need.die, face)), q))
    return result, lost


def need_of(check: DiceCheck) -> Need:
    need = check.need()
    assert need is not None, "the check resolved early"
    return need


def uniform(die_faces: range | list[int]) -> dict[int, Fraction]:
    faces = list(die_faces)
    return {f: Fraction(1, len(faces)) for f in faces}


# --- Peupfudge --------------------------------------------------------------------------------
@pytest.mark.parametrize("die", ["dF", "d6"])
def test_peupfudge_routes_give_the_exact_distribution(die: str) -> None:
    check = PeupfudgeCheck(level=2, bonus=1, difficulty=4, die=die)
    faces = {"dF": uniform([-1, 0, 1]), "d6": uniform(range(1, 7))}
    dist, lost = explore(check, faces, Fraction(0))
    assert lost == 0
    assert dist == Action(2, 4, 1).total().pmf()
    assert check.chance()[1] == Action(2, 4, 1).p_success()


def test_d6_read_as_fudge() -> None:
    assert [d6_as_fudge(f) for f in range(1, 7)] == [-1, -1, 0, 0, 1, 1]


# --- exploding d6 pool ------------------------------------------------------------------------
def fate_classes(fate: d6pool.Fate) -> dict[int, Fraction]:
    """One face per class (lose, win, win-and-explode), weighted by how many faces it has."""
    lose, win, explode = fate.value
    classes = {1: Fraction(lose, 6), lose + 1: Fraction(win, 6), 6: Fraction(explode, 6)}
    return {face: w for face, w in classes.items() if w}


@pytest.mark.parametrize("fate", list(d6pool.Fate), ids=lambda f: f.name.lower())
def test_d6pool_route_gives_the_exact_score(fate: d6pool.Fate) -> None:
    roller = d6pool.Roller(2, fate, leverage=1)
    check = D6PoolCheck(roller=roller, difficulty=3)
    dist, lost = explore(check, {"d6": fate_classes(fate)}, Fraction(1, 10**12))
    exact = roller.total().pmf()
    assert lost < Fraction(1, 10**9)
    for value in exact:
        assert abs(dist.get(value, Fraction(0)) - exact[value]) <= lost


@pytest.mark.parametrize("fate", list(d6pool.Fate), ids=lambda f: f.name.lower())
def test_every_d6_face_does_what_its_fate_says(fate: d6pool.Fate) -> None:
    lose, win, _ = fate.value
    for face in range(1, 7):
        check = D6PoolCheck(roller=d6pool.Roller(1, fate), difficulty=1).accept(Reading("d6", face))
        explodes = face > lose + win
        assert (check.need() is not None) == explodes
        if not explodes:
            assert check.resolve().value == (0 if face <= lose else 1)


def test_d6pool_asks_for_explosion_dice() -> None:
    check = D6PoolCheck(roller=d6pool.Roller(3), difficulty=4)
    assert check.need() == Need("d6", 3)
    check = check.accept(Reading("d6", 5), Reading("d6", 6), Reading("d6", 2))
    assert need_of(check).prompt == "throw 2 more d6 for the explosions"
    check = check.accept(Reading("d6", 6))
    assert need_of(check).count == 2  # the new 6 exploded too
    check = check.accept(Reading("d6", 1), Reading("d6", 3))
    res = check.resolve()
    assert (res.value, res.success, dict(res.details)["explosions"]) == (4, True, 3)


# --- Decibel ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("pool", "discard"), [(3, 0), (3, 1)])
def test_decibel_route_gives_the_exact_outcome(pool: int, discard: int) -> None:
    check = DecibelCheck(pool=pool, discard=discard, target=5)
    dist, lost = explore(check, {"d20": uniform(range(1, 21))}, Fraction(0))
    assert lost == 0
    assert dist == decibel.outcome_distribution(pool, discard).pmf()


def test_decibel_versus_and_the_seeds_compound_example() -> None:
    check = DecibelCheck(pool=6, discard=1, target=11)
    res = check.accept(*(Reading("d20", f) for f in (19, 13, 8, 6, 5, 2))).resolve()
    assert (res.value, res.success, res.degree) == (11, True, 0)
    assert dict(res.details)["compound"] == [11, 3]
    duel = DecibelCheck(pool=3, versus=3)
    assert need_of(duel).prompt == "throw 3 d20 for your pool"
    duel = duel.accept(*(Reading("d20", f) for f in (20, 10, 1)))
    assert need_of(duel).prompt == "throw 3 d20 for the opposing pool"
    tie = duel.accept(*(Reading("d20", f) for f in (20, 3, 1)))
    assert tie.resolve().success is None


# --- d5 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("die", "q"), [("d5", Fraction(4, 5)), ("d10", Fraction(4, 5)), ("d6", Fraction(5, 6))]
)
def test_d5_routes_give_the_exact_net_result(die: str, q: Fraction) -> None:
    stops = d5.stop_faces(die)
    faces = {"d5": range(1, 6), "d10": range(0, 10), "d6": range(1, 7)}[die]
    # one representative face per class, weighted: the check must treat a class alike
    stop_face, go_face = min(stops), max(faces)
    weights = {stop_face: 1 - q, go_face: q}
    dist, lost = explore(D5Check(at_least=0, die=die), {die: weights}, Fraction(1, 10**8))
    net = d5.NetResult(q)
    assert lost < Fraction(1, 10**5)
    for k in range(-5, 6):
        assert abs(dist[k] - net.pmf(k)) <= lost


@pytest.mark.parametrize("die", ["d5", "d10", "d6"])
def test_every_face_stops_or_goes_as_the_rule_says(die: str) -> None:
    faces = {"d5": range(1, 6), "d10": range(0, 10), "d6": range(1, 7)}[die]
    for face in faces:
        after = D5Check(at_least=0, die=die, single=True).accept(Reading(die, face))
        assert (after.need() is None) == (face in d5.stop_faces(die))


def table_segments() -> dict[int, Fraction]:
    """The d100 split where either table changes its reading: one face per segment."""
    starts = sorted({lo for lo, _, _ in d5_tables.TABLE1_BANDS + d5_tables.TABLE2_BANDS})
    ends = [*starts[1:], 101]
    return {lo: Fraction(hi - lo, 100) for lo, hi in zip(starts, ends, strict=True)}


def test_d5_table_route_gives_the_tables_distribution() -> None:
    check = D5Check(at_least=0, die="d100")
    dist, lost = explore(check, {"d100": table_segments()}, Fraction(1, 10**12))
    assert lost < Fraction(1, 10**7)
    for k in range(-25, 26):
        assert abs(dist.get(k, Fraction(0)) - d5_tables.table2_probability(k)) <= lost
    assert check.chance()[1] == d5_tables.table2_p_at_least(0)


def test_d5_prompts() -> None:
    check = D5Check(at_least=1)
    assert need_of(check).prompt == "throw 1 d5 for the positive roll, until a 1 shows"
    check = check.accept(Reading("d5", 4))
    assert need_of(check).prompt == "throw 1 d5 again for the positive roll, until a 1 shows"


# --- refusing bad readings --------------------------------------------------------------------
def test_wrong_die_face_count_and_uncertain_readings_change_nothing() -> None:
    check = PeupfudgeCheck(level=2, difficulty=4).accept(Reading("dF", 1))
    with pytest.raises(ReadingRefused, match="needs a dF now, not a d20"):
        check.accept(Reading("dF", 0), Reading("d20", 3))
    with pytest.raises(ReadingRefused, match="has no face 7"):
        Reading("d6", 7)
    with pytest.raises(ReadingRefused, match="not needed"):
        check.accept(*(Reading("dF", 0) for _ in range(4)))
    with pytest.raises(ReadingRefused, match="uncertain"):
        check.accept(Reading("dF", 1, confidence=0.2, source="camera:0"))
    assert check.readings == (Reading("dF", 1),)  # all or nothing: nothing was lost or added
    assert len(check.accept(Reading("dF", 0)).readings) == 2


def test_readings_parse_like_the_command_line() -> None:
    assert Reading.parse("d10:3") == Reading("d10", 3)
    assert Reading.parse("dF:+") == Reading("dF", 1)
    assert Reading.parse("DF:-") == Reading("dF", -1)
    assert Reading.parse("d10:10").value == 0
    for bad, why in [("d10", "TYPE:FACE"), ("d7:3", "unknown die"), ("d6:x", "not a number")]:
        with pytest.raises(ReadingRefused, match=why):
            Reading.parse(bad)


def test_a_resolution_is_a_plain_value() -> None:
    check = DphiCheck(might=0.5).accept(Reading("d10", 4), Reading("d10", 8))
    data = check.resolve().to_dict()
    assert data["outcome"] == "success" and data["success"] is True
    assert data["readings"] == [
        {"die": "d10", "face": 4, "confidence": 1.0, "source": "manual"},
        {"die": "d10", "face": 8, "confidence": 1.0, "source": "manual"},
    ]
    assert data["probability"] == pytest.approx(0.52492, abs=1e-5)
    assert "success" in data["explanation"]


def test_d5_decimals_from_extra_d10s() -> None:
    faces = [3, 8, 10, 7, 9, 4, 6, 3, 10, 10, 8, 4, 2, 3, 6, 9, 4, 4, 1]  # the seed's +7
    check = D5Check(at_least=7, die="d10", decimals=2).accept(*(Reading("d10", f) for f in faces))
    assert need_of(check).prompt == "throw 2 d10 for the decimals"
    done = check.accept(Reading("d10", 3), Reading("d10", 5))
    res = done.resolve()
    assert res.value == Fraction(735, 100) and res.success is True and res.degree == 0
    with pytest.raises(ReadingRefused, match="not needed"):
        done.accept(Reading("d10", 1))


def test_checks_are_created_by_system_name_with_the_odds_names() -> None:
    from mechanics.check_factory import create_check

    pool = create_check("d6pool", level=5, difficulty=6, fate="lucky", leverage=1)
    assert isinstance(pool, D6PoolCheck) and pool.roller.fate is d6pool.Fate.LUCKY
    assert pool.chance()[1] == d6pool.p_check(d6pool.Roller(5, d6pool.Fate.LUCKY, leverage=1), 6)
    assert isinstance(create_check("dphi", might=1.0, versus=0.5), DphiCheck) is False
    assert create_check("decibel", pool=5, target=13, versus=None).need() == Need("d20", 5)
    with pytest.raises(ValueError, match="unknown parameter 'levle'"):
        create_check("peupfudge", levle=2, difficulty=3)
    with pytest.raises(ValueError, match="unknown system"):
        create_check("d8pool", level=2)


def test_opposed_route_gives_the_exact_odds_and_ties() -> None:
    from mechanics.check_pools import PeupfudgeOpposedCheck
    from mechanics.peupfudge import Participant, opposed

    check = PeupfudgeOpposedCheck(scores=(1, 0, 2), dice=1)
    outcomes: dict[bool | None, Fraction] = {}
    frontier: list[tuple[DiceCheck, Fraction]] = [(check, Fraction(1))]
    while frontier:
        current, p = frontier.pop()
        need = current.need()
        if need is None:
            verdict = current.resolve().success
            outcomes[verdict] = outcomes.get(verdict, Fraction(0)) + p
            continue
        for face in (-1, 0, 1):
            frontier.append((current.accept(Reading("dF", face)), p / 3))
    odds = opposed([Participant("a", 1, 1), Participant("b", 0, 1), Participant("c", 2, 1)])
    assert outcomes[True] == odds.wins[0] == check.chance()[1]
    assert sum(outcomes.values()) == 1


def test_the_seeds_race_through_the_check() -> None:
    from mechanics.check_factory import create_check

    race = create_check("peupfudge", opposed=[2 + 1, 5 - 1, 8 + 0])
    assert need_of(race).prompt == "throw 3 dF for participant #1"
    faces = [0, 0, 0, 1, 1, 0, -1, -1, -1]  # Gromanno 0, Nyrv +2, Polthova −3
    res = race.accept(*(Reading("dF", f) for f in faces)).resolve()
    assert dict(res.details)["totals"] == [3, 6, 5]
    assert dict(res.details)["winners"] == [2] and res.success is False


# --- the reviewer's findings (each test failed before its fix) --------------------------------
@pytest.mark.parametrize("fate", [3, ["lucky"], {"a": 1}, True, 2.5, "lucy", ""])
def test_d6pool_fate_must_be_a_fates_name(fate: object) -> None:
    """POST /api/checks with "fate": 3 (or ["lucky"], {"a": 1}, true) was a 500: the fate
    went to the Roller as it was, and failed as 'int' object has no attribute 'value'."""
    from mechanics.check_factory import create_check

    with pytest.raises(ValueError, match="fate must be one of cursed, unlucky, neutral, lucky, "):
        create_check("d6pool", level=3, difficulty=4, fate=fate)


def test_a_roller_takes_only_a_fate() -> None:
    from mechanics.check_factory import create_check

    with pytest.raises(ValueError, match="cursed, unlucky, neutral, lucky, blessed"):
        d6pool.Roller(3, "lucky")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cursed, unlucky, neutral, lucky, blessed"):
        d6pool.Fate.named(3)
    check = create_check("d6pool", level=3, difficulty=4, fate="Lucky")
    assert isinstance(check, D6PoolCheck) and check.roller.fate is d6pool.Fate.LUCKY
    assert create_check("d6pool", level=3, difficulty=4, fate=d6pool.Fate.CURSED).chance()[1] == (
        d6pool.p_check(d6pool.Roller(3, d6pool.Fate.CURSED), 4)
    )


def test_an_opposed_action_has_at_most_200_participants_even_throwing_no_dice() -> None:
    """3,000 participants throwing 0 dice each passed the 200-dice bound (0 in all) and took
    35 s to work out; `odds peupfudge` refused them, the check did not."""
    from mechanics.check_factory import create_check
    from mechanics.check_pools import PeupfudgeOpposedCheck

    for n in (201, 3000):
        with pytest.raises(ValueError, match=f"at most 200 participants, not {n}"):
            create_check("peupfudge", opposed=list(range(n)), dice=0)
        with pytest.raises(ValueError, match="at most 200 participants"):
            PeupfudgeOpposedCheck(scores=tuple(range(n)), dice=0)
    most = create_check("peupfudge", opposed=list(range(200)), dice=0)
    assert most.need() is None and most.resolve().success is False  # #200 has the top score


def _every_check(min_confidence: object) -> list[DiceCheck]:
    from mechanics.check_factory import create_check

    c = {"min_confidence": min_confidence}
    return [
        create_check("dphi", might=1.0, **c),
        create_check("dphi", might=1.0, versus=0.5, **c),
        create_check("peupfudge", level=2, difficulty=3, **c),
        create_check("peupfudge", opposed=[1, 2], **c),
        create_check("d6pool", level=3, difficulty=4, **c),
        create_check("decibel", pool=5, target=10, **c),
        create_check("d5", at_least=1, **c),
    ]


def _check_classes(cls: type[DiceCheck] = DiceCheck) -> list[type[DiceCheck]]:
    subs = cls.__subclasses__()
    return subs + [c for s in subs for c in _check_classes(s)]


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), float("inf"), -float("inf")])
def test_min_confidence_lies_between_0_and_1(bad: float) -> None:
    """min_confidence 1.5 made a check refuse every die, even the virtual source's at 1.0."""
    from mechanics.check_factory import create_check

    with pytest.raises(ValueError):  # through create_check ("a finite real number" for NaN)
        create_check("d6pool", level=3, difficulty=4, min_confidence=bad)
    built = {type(c) for c in _every_check(0.5)}
    assert built == set(_check_classes())  # every kind of check, each made directly too
    for check in _every_check(0.5):
        with pytest.raises(ValueError, match="min_confidence must be a number from 0 to 1"):
            dataclasses.replace(check, min_confidence=bad)


def test_min_confidence_bounds_themselves_are_taken() -> None:
    for edge in (0, 0.0, 1, 1.0):
        for check in _every_check(edge):
            need = check.need()
            assert need is not None
            face = 0 if need.die == "dF" else 1
            check.accept(Reading(need.die, face, confidence=1.0, source="virtual"))
    strict = _every_check(1.0)[4]
    with pytest.raises(ReadingRefused, match="uncertain"):
        strict.accept(Reading("d6", 3, confidence=0.99))


def _rule_total(roller: d6pool.Roller, wins: int) -> int:
    if roller.leverage_before_cap:
        return min(wins + roller.leverage, roller.cap)
    return min(wins, roller.cap) + roller.leverage


def _face_effect(fate: d6pool.Fate, face: int) -> tuple[int, int]:
    """(wins, extra dice) of a face, from the seed's table (not the check's code)."""
    lose, win, _ = fate.value
    return (0, 0) if face <= lose else (1, 0) if face <= lose + win else (1, 1)


def _rule_totals(
    roller: d6pool.Roller, wins: int, left: int, depth: int, memo: dict[tuple[int, ...], set[int]]
) -> set[int]:
    """Every total of the full throws of the rule that end within ``depth`` more dice, from
    ``wins`` and ``left`` dice still to throw (a run of explosions may go on past it)."""
    key = (wins, left, depth)
    if key not in memo:
        if left == 0:
            memo[key] = {_rule_total(roller, wins)}
        elif depth == 0:
            memo[key] = set()
        else:
            memo[key] = set()
            for face in range(1, 7):
                w, extra = _face_effect(roller.fate, face)
                memo[key] |= _rule_totals(roller, wins + w, left - 1 + extra, depth - 1, memo)
    return memo[key]


@pytest.mark.parametrize("fate", list(d6pool.Fate), ids=lambda f: f.name.lower())
def test_d6pool_stops_asking_once_no_die_can_change_the_total(
    fate: d6pool.Fate, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`resolve d6pool --level 9 --difficulty 9` with nine 5s asked for 9 more d6 for the
    explosions though the score was capped.  Brute force, with the cap lowered to 2 and 3 so
    that small pools reach it: every sequence of faces the check asks for, up to 6 dice,
    against every full throw of the rule from there (all six faces each time)."""
    for cap in (2, 3):
        monkeypatch.setattr(d6pool, "MORTAL_CAP", cap)
        for level, leverage, before in itertools.product(
            range(0, 4), (-2, -1, 0, 1, 3), (False, True)
        ):
            roller = d6pool.Roller(level, fate, leverage=leverage, leverage_before_cap=before)
            check = D6PoolCheck(roller=roller, difficulty=cap)
            _walk(check, roller, wins=0, left=roller.dice, depth=6, memo={})


def _walk(
    check: D6PoolCheck,
    roller: d6pool.Roller,
    wins: int,
    left: int,
    depth: int,
    memo: dict[tuple[int, ...], set[int]],
) -> None:
    need = check.need()
    if need is None:  # settled: every full throw from here gives the check's total
        reachable = _rule_totals(roller, wins, left, left + 3, memo)
        assert reachable, "no full throw ended within the depth: nothing was compared"
        res = check.resolve()
        assert reachable == {res.value}, (check.readings, roller)
        assert res.success == (res.value >= check.difficulty)
        assert res.degree == res.value - check.difficulty
        return
    assert left > 0, "the check asked for a die the rule does not throw"
    # a die can still change the total: the lowest throw from here (every die a 1, no
    # explosion) against a high one (explosions, for fates that have them)
    low = _rule_total(roller, wins + left * _face_effect(roller.fate, 1)[0])
    most = left + (roller.cap + abs(roller.leverage) if roller.fate.explode else 0)
    assert low != _rule_total(roller, wins + most), (check.readings, roller)
    assert need.count == left
    if depth == 0:
        return
    for face in range(1, 7):
        w, extra = _face_effect(roller.fate, face)
        _walk(
            check.accept(Reading("d6", face)), roller, wins + w, left - 1 + extra, depth - 1, memo
        )


@pytest.mark.parametrize("level", [8, 12, 20])
def test_a_d6_pool_settled_part_way_through_a_throw_takes_the_whole_throw(level: int) -> None:
    """Dice thrown together have no order: twelve 4s at level 12 were refused ("already
    resolved; 3 more dice were not needed") once the ninth reached the cap, and the same
    dice in another order were taken; the appliance's own throw failed at level 20 every
    time.  Every order of one throw now resolves alike."""
    rng = random.Random(level)
    for _ in range(20):
        faces = [rng.randint(1, 6) for _ in range(level)]
        results = set()
        for order in (faces, sorted(faces), sorted(faces, reverse=True)):
            check = D6PoolCheck(roller=d6pool.Roller(level), difficulty=3)
            done = check.accept(*(Reading("d6", f) for f in order))
            res = done.resolve() if done.need() is None else None
            results.add(None if res is None else (res.value, res.success))
        assert len(results) == 1, faces
    fours = D6PoolCheck(roller=d6pool.Roller(12), difficulty=3).accept(*[Reading("d6", 4)] * 12)
    assert fours.need() is None and fours.resolve().value == d6pool.MORTAL_CAP
    with pytest.raises(ReadingRefused, match="already resolved; 1 more die was not needed"):
        fours.accept(Reading("d6", 2))  # a later throw is still refused
