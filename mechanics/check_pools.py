"""Checks for the dice-pool systems: Peupfudge, the exploding d6 pool, Decibel."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from mechanics import d6pool, decibel
from mechanics.check import DiceCheck, Resolution
from mechanics.peupfudge import CHECK_DICE, OPPOSED_DICE, Action, Participant, opposed
from mechanics.reading import MAX_DICE, Need, Reading

MAX_SCORE = 10**6  # an L + A far past any character's


def d6_as_fudge(face: int) -> int:
    """Peupfudge with ordinary d6s: 1–2 → −1, 3–4 → 0, 5–6 → +1 (equal chances)."""
    return (face - 1) // 2 - 1


@dataclass(frozen=True, kw_only=True)
class PeupfudgeCheck(DiceCheck):
    """L + A + NdF ≥ D, thrown with Fudge dice or with d6s read as Fudge dice."""

    level: int
    difficulty: int
    bonus: int = 0
    dice: int = CHECK_DICE
    die: str = "dF"
    system: str = field(default="peupfudge", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.die not in ("dF", "d6"):
            raise ValueError("Peupfudge is thrown with dF, or with d6s read as dF")
        if not 0 <= self.dice <= MAX_DICE:
            raise ValueError(f"a check throws 0 to {MAX_DICE} dice, not {self.dice}")

    def _fudge(self, r: Reading) -> int:
        return r.face if r.die == "dF" else d6_as_fudge(r.face)

    def need(self) -> Need | None:
        left = self.dice - len(self.readings)
        if left <= 0:
            return None
        return Need(self.die, left, "more" if self.readings else "")

    def chance(self) -> tuple[float, Fraction | None]:
        p = Action(self.level, self.difficulty, self.bonus, self.dice).p_success()
        return float(p), p

    def resolve(self) -> Resolution:
        roll = sum(self._fudge(r) for r in self.readings)
        total = self.level + self.bonus + roll
        shown = " ".join(f"{self._fudge(r):+d}" for r in self.readings)
        return self.reached(
            total,
            self.difficulty,
            f"{self.dice}dF rolled {roll:+d} ({shown or 'no dice'}): "
            f"{self.level} + {self.bonus} + {roll} = {total} against {self.difficulty}",
            (("roll", roll),),
        )


@dataclass(frozen=True, kw_only=True)
class D6PoolCheck(DiceCheck):
    """The exploding d6 pool: every exploding face asks for one more die, then the cap."""

    roller: d6pool.Roller
    difficulty: int
    system: str = field(default="d6pool", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.roller.dice > MAX_DICE:
            raise ValueError(
                f"a pool of {self.roller.dice} dice is beyond the {MAX_DICE} a table holds"
            )

    def _faces(self, face: int) -> tuple[int, int]:
        """(wins, extra dice) for a face under the roller's fate (the seed's table)."""
        lose, win, _ = self.roller.fate.value
        if face <= lose:
            return 0, 0
        if face <= lose + win:
            return 1, 0
        return 1, 1

    def _left(self) -> int:
        """Dice still to throw under the rule: the pool and every explosion, less those read."""
        extra = sum(self._faces(r.face)[1] for r in self.readings)
        return self.roller.dice + extra - len(self.readings)

    def _sure_wins(self) -> int:
        """Wins the dice not yet thrown bring whatever they show: one each when no face
        loses (blessed), none otherwise."""
        return self._left() if self.roller.fate.lose == 0 else 0

    def settled(self) -> bool:
        """Whether no die still to throw can change the total: the wins read (and those the
        unthrown dice are sure to bring) already reach the cap, or with leverage before the
        cap, cap − leverage.  The total only grows with wins and stops there, so the full
        throw would give the same total; `resolve d6pool --level 9 --difficulty 9` asked for
        9 more d6 after nine 5s."""
        r = self.roller
        reach = r.cap - r.leverage if r.leverage_before_cap else r.cap
        wins = sum(self._faces(x.face)[0] for x in self.readings)
        return wins + self._sure_wins() >= reach

    def need(self) -> Need | None:
        left = self._left()
        if left <= 0 or self.settled():
            return None
        if not self.readings:
            return Need("d6", left)
        if len(self.readings) >= self.roller.dice:
            return Need("d6", left, "more for the explosions")
        return Need("d6", left, "more")

    def chance(self) -> tuple[float, Fraction | None]:
        p = d6pool.p_check(self.roller, self.difficulty)
        return float(p), p

    def resolve(self) -> Resolution:
        """The total of the dice read; once :meth:`settled`, dice the rule would still throw
        are not asked for (blessed ones left unthrown count the win each is sure of)."""
        r = self.roller
        left = max(self._left(), 0)
        read = sum(self._faces(x.face)[0] for x in self.readings)
        sure = self._sure_wins() if left else 0
        wins = read + sure
        if r.leverage_before_cap:
            total = min(wins + r.leverage, r.cap)
        else:
            total = min(wins, r.cap) + r.leverage
        explosions = sum(self._faces(x.face)[1] for x in self.readings)
        capped = " (capped)" if wins > r.cap else ""
        said = f"gave {wins} wins{capped}"
        if left:
            said = f"gave {read} wins; {left} more d6 could not change the score and were not " + (
                f"thrown (blessed, a sure win each: {wins} wins{capped})" if sure else "thrown"
            )
        return self.reached(
            total,
            self.difficulty,
            f"{len(self.readings)} d6 ({explosions} from explosions) {said}"
            f"{f', leverage {r.leverage:+d}' if r.leverage else ''}: {total} against "
            f"{self.difficulty} ({d6pool.difficulty_name(self.difficulty)})",
            (("wins", wins), ("explosions", explosions)),
        )


@dataclass(frozen=True, kw_only=True)
class DecibelCheck(DiceCheck):
    """(N−X)dB from one throw of N d20 against a target, or against an M-die pool."""

    pool: int
    discard: int = 0
    target: int | None = None
    versus: int | None = None
    versus_discard: int = 0
    system: str = field(default="decibel", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        decibel.validate(self.pool, self.discard)
        if (self.target is None) == (self.versus is None):
            raise ValueError("a Decibel check needs a target or an opposing pool (one of them)")
        if self.versus is not None:
            decibel.validate(self.versus, self.versus_discard)

    def need(self) -> Need | None:
        n = len(self.readings)
        if n < self.pool:
            return Need("d20", self.pool - n, "for your pool" if self.versus else "")
        if self.versus is not None and n < self.pool + self.versus:
            return Need("d20", self.pool + self.versus - n, "for the opposing pool")
        return None

    def chance(self) -> tuple[float, Fraction | None]:
        if self.target is not None:
            p = decibel.p_success(self.pool, self.discard, self.target)
        else:
            assert self.versus is not None
            p = decibel.dynamic(
                decibel.Check(self.pool, self.discard),
                decibel.Check(self.versus, self.versus_discard),
            )[0]
        return float(p), p

    def resolve(self) -> Resolution:
        faces = [r.face for r in self.readings]
        mine = decibel.resolve(faces[: self.pool], self.discard, self.target)
        p, exact = self.chance()
        label = decibel.Check(self.pool, self.discard).label
        details: list[tuple[str, object]] = [("secondary", mine.secondary)]
        if len(mine.compound) > 1:
            details.append(("compound", list(mine.compound)))
        if self.versus is not None:
            theirs = decibel.resolve(faces[self.pool :], self.versus_discard)
            degree = mine.outcome - theirs.outcome
            success: bool | None = None if degree == 0 else degree > 0
            against = f"against {theirs.outcome}"
            details.append(("opposing_outcome", theirs.outcome))
        else:
            assert self.target is not None
            degree = mine.outcome - self.target
            success = degree >= 0
            against = f"against target {self.target}"
        verdict = "tie" if success is None else "success" if success else "failure"
        return Resolution(
            system=self.system,
            value=mine.outcome,
            success=success,
            degree=degree,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=f"{label} rolled {mine.outcome} {against}: {verdict} (degree {degree:+d})",
            details=tuple(details),
        )


@dataclass(frozen=True, kw_only=True)
class PeupfudgeOpposedCheck(DiceCheck):
    """An opposed action: each participant's L + A + NdF, thrown in turn; equal tops tie.

    ``success`` is about the first participant: True when strictly highest,
    None when tied for the top, False otherwise; ``details`` name the winner.
    """

    scores: tuple[int, ...]
    dice: int = OPPOSED_DICE
    die: str = "dF"
    system: str = field(default="peupfudge", init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.scores) < 2:
            raise ValueError("an opposed action needs at least two participants")
        if self.die not in ("dF", "d6"):
            raise ValueError("Peupfudge is thrown with dF, or with d6s read as dF")
        if self.dice < 0:
            raise ValueError(f"cannot throw {self.dice} dice")
        if self.dice * len(self.scores) > MAX_DICE:  # 2,000 players took a minute to work out
            raise ValueError(f"an opposed action throws at most {MAX_DICE} dice in all, not "
                             f"{self.dice} for each of {len(self.scores)}")  # fmt: skip
        if len(self.scores) > MAX_DICE:  # at 0 dice each the bound above is 0: 3,000
            # participants took 35 s to work out (as many as dice a table holds, at most)
            raise ValueError(f"an opposed action has at most {MAX_DICE} participants, "
                             f"not {len(self.scores)}")  # fmt: skip
        if any(abs(score) > MAX_SCORE for score in self.scores):
            raise ValueError(f"an opposed action's scores are within ±{MAX_SCORE}")

    def _fudge(self, r: Reading) -> int:
        return r.face if r.die == "dF" else d6_as_fudge(r.face)

    def need(self) -> Need | None:
        done = len(self.readings)
        total = self.dice * len(self.scores)
        if done >= total:
            return None
        who = done // self.dice if self.dice else 0
        left = self.dice - done % self.dice
        return Need(self.die, left, f"for participant #{who + 1}")

    def chance(self) -> tuple[float, Fraction | None]:
        people = [Participant(f"#{i}", s, self.dice) for i, s in enumerate(self.scores, 1)]
        p = opposed(people).wins[0]
        return float(p), p

    def totals(self) -> list[int]:
        rolls = [self._fudge(r) for r in self.readings]
        d = self.dice
        return [s + sum(rolls[i * d : (i + 1) * d]) for i, s in enumerate(self.scores)]

    def resolve(self) -> Resolution:
        totals = self.totals()
        top = max(totals)
        leaders = [i for i, t in enumerate(totals) if t == top]
        success: bool | None = None if len(leaders) > 1 and 0 in leaders else leaders == [0]
        p, exact = self.chance()
        second_best = max(t for i, t in enumerate(totals) if i != 0)
        shown = ", ".join(f"#{i} {t}" for i, t in enumerate(totals, 1))
        verdict = (
            f"participant #{leaders[0] + 1} wins"
            if len(leaders) == 1
            else "tie between " + " and ".join(f"#{i + 1}" for i in leaders)
        )
        return Resolution(
            system=self.system,
            value=totals[0],
            success=success,
            degree=totals[0] - second_best,
            probability=p,
            exact=exact,
            readings=self.readings,
            explanation=f"opposed action on {self.dice}dF: {shown}: {verdict}",
            details=(("totals", totals), ("winners", [i + 1 for i in leaders])),
        )
