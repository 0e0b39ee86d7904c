"""The key-point checklist of a self-graded card: which points the typed answer covered, the user's own
ticks on top (a spoken answer is ticked by hand), and the rating the coverage suggests.

Built on reveal from quizapp.content.keypoints; the review screen and the mock debrief render it and
forward toggles; the ticks are stored with the rating (Store.review(points=...)).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from quizapp.content.keypoints import Coverage, PointResult, cover, points_of
from quizapp.vocab import CardKind, Rating

TOGGLE_KEYS = ("z", "x", "c", "v", "b", "n", "m")  # one per point (at most 7), clear of Anki's 1-4


@dataclass
class Checklist:
    """Points in their order, what the typed answer covered (`found`), and the ticks as they are now."""

    points: tuple[PointResult, ...]
    ticked: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def from_coverage(cls, coverage: Coverage) -> Checklist:
        return cls(coverage.points, {p.id: p.covered for p in coverage.points})

    def toggle(self, index: int) -> bool:
        """Flip point `index` (0-based); False when there is no such point."""
        if not 0 <= index < len(self.points):
            return False
        point = self.points[index].id
        self.ticked[point] = not self.ticked[point]
        return True

    @property
    def coverage(self) -> Coverage:
        """The points as ticked now (the user's ticks over what the answer covered)."""
        return Coverage(tuple(replace(p, covered=self.ticked[p.id]) for p in self.points))

    @property
    def covered(self) -> int:
        return self.coverage.covered

    @property
    def total(self) -> int:
        return len(self.points)

    @property
    def suggested(self) -> Rating:
        return self.coverage.suggested

    def missed_first(self) -> list[PointResult]:
        """The points, those not ticked first (must-have ones before the others), then the ticked ones."""
        order = {p.id: i for i, p in enumerate(self.points)}
        return sorted(self.points, key=lambda p: (self.ticked[p.id], not p.must, order[p.id]))


def checklist_for(content, answer: str | None) -> Checklist | None:
    """The checklist of a question or follow-up card (None for a drill or a card without points),
    pre-ticked with what `answer` (typed, may be empty) covers."""
    from quizapp.content.drills import render_text

    if content.kind is CardKind.DRILL:
        return None
    points = points_of(content.question, None if content.kind is CardKind.QUESTION else content.item_id)
    if not points:
        return None
    return Checklist.from_coverage(cover(content.question, points, render_text(content.question, answer or "")))
