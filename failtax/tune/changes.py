"""Proposed table changes as records: what to edit, why, and how sure we are.

A :class:`ProposedChange` is one reviewable edit of a rule table's ``[[route]]`` rows
(re-route a signal, route a signal the table did not know, drop a signal from a route,
move a route, add a route for a combination of signals), made of primitive
:class:`RouteEdit` steps that :meth:`ProposedChange.apply` replays on a table. It carries
the evidence for it measured on the decisions it was fitted on: how many events move,
how many of them are labelled, how many moved decisions the person's action now carries
out (wins) or no longer does (losses), the agreement gain with a Newcombe 95% interval,
and a one-sided exact binomial p-value of wins against losses.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from failtax.analysis.stats import format_gain
from failtax.table import RouteRule, RuleTable

__all__ = ["ProposedChange", "RouteEdit", "apply_changes"]

_OPS = ("add-signal", "remove-signal", "insert-route", "remove-route", "move-route")


@dataclass(frozen=True)
class RouteEdit:
    """One primitive edit of a table's routes.

    ``op`` is one of ``add-signal`` (append ``signal`` to route ``route``'s ``any``),
    ``remove-signal`` (take ``signal`` out of route ``route``'s ``any``; a route left with
    no signals is removed), ``insert-route`` (insert ``rule`` before route ``before``, or
    at the end when ``before`` is ``None``), ``remove-route`` and ``move-route`` (move
    route ``route`` before route ``before``, or to the end).

    >>> RouteEdit.insert(RouteRule(id="x", bucket="infra", any=("a",)), before=None).op
    'insert-route'
    """

    op: str
    route: str
    signal: str | None = None
    rule: RouteRule | None = None
    before: str | None = None

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"unknown route edit {self.op!r}; use one of {', '.join(_OPS)}")

    @classmethod
    def add_signal(cls, route: str, signal: str) -> RouteEdit:
        return cls("add-signal", route, signal=signal)

    @classmethod
    def remove_signal(cls, route: str, signal: str) -> RouteEdit:
        return cls("remove-signal", route, signal=signal)

    @classmethod
    def insert(cls, rule: RouteRule, *, before: str | None) -> RouteEdit:
        return cls("insert-route", rule.id, rule=rule, before=before)

    @classmethod
    def remove(cls, route: str) -> RouteEdit:
        return cls("remove-route", route)

    @classmethod
    def move(cls, route: str, *, before: str | None) -> RouteEdit:
        return cls("move-route", route, before=before)

    def apply(self, routes: Sequence[RouteRule]) -> tuple[RouteRule, ...]:
        """The routes after this edit. Raises ``KeyError`` for a route id that is absent."""
        rs = list(routes)
        ids = [r.id for r in rs]

        def pos(rid: str | None) -> int:
            if rid is None:
                return len(rs)
            return ids.index(rid) if rid in ids else _missing(rid)

        if self.op == "add-signal":
            i = pos(self.route)
            r = rs[i]
            if self.signal not in r.any:
                rs[i] = dataclasses.replace(r, any=(*r.any, self.signal))
        elif self.op == "remove-signal":
            i = pos(self.route)
            r = rs[i]
            new_any = tuple(s for s in r.any if s != self.signal)
            if not new_any and not r.all:
                del rs[i]
            else:
                rs[i] = dataclasses.replace(r, any=new_any)
        elif self.op == "insert-route":
            assert self.rule is not None
            rs.insert(pos(self.before), self.rule)
        elif self.op == "remove-route":
            del rs[pos(self.route)]
        else:  # move-route
            i = pos(self.route)
            r = rs.pop(i)
            ids.pop(i)
            rs.insert(pos(self.before), r)
        return tuple(rs)

    def __str__(self) -> str:
        where = f"before route {self.before!r}" if self.before else "at the end"
        if self.op == "add-signal":
            return f"add {self.signal!r} to route {self.route!r}"
        if self.op == "remove-signal":
            return f"remove {self.signal!r} from route {self.route!r}"
        if self.op == "insert-route":
            return f"insert {self.rule!r} {where}"
        if self.op == "remove-route":
            return f"remove route {self.route!r}"
        return f"move route {self.route!r} {where}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"op": self.op, "route": self.route}
        if self.signal is not None:
            out["signal"] = self.signal
        if self.rule is not None:
            out["rule"] = {
                k: (list(v) if isinstance(v, tuple) else v)
                for k, v in dataclasses.asdict(self.rule).items()
                if v not in ((), None, "")
            }
        if self.op in ("insert-route", "move-route"):
            out["before"] = self.before
        return out


def _missing(rid: str) -> int:
    raise KeyError(f"no route {rid!r} in the table")


def apply_edits(routes: Sequence[RouteRule], edits: Iterable[RouteEdit]) -> tuple[RouteRule, ...]:
    out = tuple(routes)
    for e in edits:
        out = e.apply(out)
    return out


@dataclass(frozen=True)
class ProposedChange:
    """One proposed edit of a rule table with the evidence for it.

    Attributes
    ----------
    kind : ``reroute-signal``, ``route-new-signal``, ``drop-signal``, ``remove-route``,
        ``move-route`` or ``add-combination-route``.
    summary : one readable line saying what changes.
    edits : the :class:`RouteEdit` steps; :meth:`apply` replays them.
    signals : the signals the change is about; ``to_bucket`` where their events go.
    moves : ``(old bucket, new bucket, events)`` for the events that change bucket.
    moved : events (decided or not) that change bucket in the fitted data.
    support : labelled events among them, in the evaluated window.
    wins, losses : moved decisions the action now carries out / no longer carries out.
    n : decisions (agreement rows) in the evaluated window.
    gain : change in agreement rate over those ``n`` decisions, with ``gain_low`` and
        ``gain_high`` (Newcombe 95% interval over the moved decisions, scaled to ``n``).
    p_value : one-sided exact binomial test of ``wins`` against ``losses``.
    since : first week of the evaluated window when a change point was found (drift);
        ``None`` when the whole fitted window was used.
    status : ``accepted`` or ``watch``; ``reason`` says why a change was refused.
    """

    kind: str
    summary: str
    edits: tuple[RouteEdit, ...]
    signals: tuple[str, ...] = ()
    to_bucket: str | None = None
    moves: tuple[tuple[str, str, int], ...] = ()
    moved: int = 0
    support: int = 0
    wins: int = 0
    losses: int = 0
    n: int = 0
    gain: float = 0.0
    gain_low: float = math.nan
    gain_high: float = math.nan
    p_value: float = 1.0
    since: date | None = None
    status: str = "watch"
    reason: str = ""

    def apply(self, table: RuleTable) -> RuleTable:
        """``table`` with this change's edits applied (validated).

        >>> from failtax.table import load_table
        >>> c = ProposedChange(kind="drop-signal", summary="", edits=(RouteEdit.remove_signal("infra", "chromium-error"),))
        >>> "chromium-error" in c.apply(load_table("replay")).route_by_id("infra").any
        False
        """
        return table.replace(route=apply_edits(table.route, self.edits))

    def with_status(self, status: str, reason: str = "") -> ProposedChange:
        return dataclasses.replace(self, status=status, reason=reason)

    def __str__(self) -> str:
        since = f", since {self.since.isoformat()}" if self.since else ""
        return (
            f"{self.summary}  [support {self.support}, moved {self.moved}, {self.wins} won / "
            f"{self.losses} lost, gain {format_gain(self.gain, self.gain_low, self.gain_high)}, "
            f"p={self.p_value:.2g}{since}]"
        )

    def provenance_line(self) -> str:
        """A one-line summary for a table's provenance header."""
        return str(self)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record of the change and its evidence."""

        def num(x: float) -> float | None:
            return None if isinstance(x, float) and math.isnan(x) else x

        return {
            "kind": self.kind,
            "summary": self.summary,
            "signals": list(self.signals),
            "to_bucket": self.to_bucket,
            "moves": [{"from": a, "to": b, "events": n} for a, b, n in self.moves],
            "moved": self.moved,
            "support": self.support,
            "wins": self.wins,
            "losses": self.losses,
            "n": self.n,
            "gain": num(self.gain),
            "gain_low": num(self.gain_low),
            "gain_high": num(self.gain_high),
            "p_value": num(self.p_value),
            "since": self.since.isoformat() if self.since else None,
            "status": self.status,
            "reason": self.reason,
            "edits": [e.to_dict() for e in self.edits],
        }


def apply_changes(table: RuleTable, changes: Iterable[ProposedChange]) -> RuleTable:
    """Apply changes in order (each to the result of the previous).

    >>> from failtax.table import load_table
    >>> apply_changes(load_table("replay"), []).version
    '1.0.0'
    """
    routes = table.route
    for c in changes:
        routes = apply_edits(routes, c.edits)
    return table.replace(route=routes)


def unique_route_id(base: str, taken: Iterable[str]) -> str:
    """``base``, or ``base-2``, ``base-3`` … whichever is not taken."""
    taken = set(taken)
    if base not in taken:
        return base
    i = 2
    while f"{base}-{i}" in taken:
        i += 1
    return f"{base}-{i}"
