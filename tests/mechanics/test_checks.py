"""Checks that ask for dice: every physical route gives the engine's exact distribution,
and bad readings are refused without losing anything."""

from __future__ import annotations

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
