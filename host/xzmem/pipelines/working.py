"""Working memory (seed 002): capacity and token limits, TTL, a priority min-heap, hybrid retrieval,
forgetting strategies and a context summary for the LLM.

Retrieval score = (TF-IDF cosine * 0.7 + keyword score * 0.3) * time decay * (0.8 + importance * 0.4),
time decay = max(0.1, decay_factor ** (hours / 6)); priority = importance * time decay.
"""

from __future__ import annotations

import heapq
import math
import secrets
import time
from collections import Counter
from dataclasses import dataclass, field

from xzmem.pipelines.terms import index_terms
from xzmem.pipelines.tokens import estimate_tokens

VECTOR_WEIGHT = 0.7
KEYWORD_WEIGHT = 0.3
DECAY_PERIOD_HOURS = 6
DECAY_FLOOR = 0.1
SUMMARY_MIN_CUT = 50  # content characters a cut last line keeps at least (seed 002)
SUMMARY_BULLET = "- "
SUMMARY_ELLIPSIS = "…"
CONTAINMENT_MAX_CHARS = 32
STRATEGIES = ("importance_based", "time_based", "capacity_based")


@dataclass(eq=False)
class MemoryItem:
    """One working memory; importance is 0-1, timestamp Unix seconds."""

    content: str
    importance: float
    timestamp: float
    category: str = "context"
    source: str = "user"
    user_id: str = ""
    session_id: str = ""
    id: str = field(default_factory=lambda: "wm_" + secrets.token_hex(6))
    forgotten: bool = False
    metadata: dict = field(default_factory=dict)
    tokens: int = 0

    def __post_init__(self):
        if not 0.0 <= self.importance <= 1.0:
            raise ValueError(f"importance must be 0-1, got {self.importance!r}")
        self.tokens = estimate_tokens(self.content)

    def __lt__(self, other: MemoryItem) -> bool:
        # Heap entries are (priority, timestamp, item): equal priority and time fall back to the id.
        return self.id < other.id

    def to_record(self) -> dict:
        return {
            "id": self.id, "content": self.content, "importance": self.importance,
            "timestamp": self.timestamp, "category": self.category, "source": self.source,
            "user_id": self.user_id, "session_id": self.session_id, "forgotten": self.forgotten,
            "metadata": self.metadata,
        }

    @classmethod
    def from_record(cls, record: dict) -> MemoryItem:
        return cls(**record)


class _Index:
    """TF-IDF vectors with postings for fast cosine.

    tf is sublinear (1 + ln tf); idf is the probabilistic ln((N - df + 0.5) / (df + 0.5) + 1), which
    weighs rare words more than the smoothed ln((N + 1) / (df + 1)) + 1 does; vectors are L2-normalised,
    so the score is a true cosine in [0, 1].
    """

    def __init__(self, items: list[MemoryItem]):
        self.items = items
        self.lowered = [item.content.lower() for item in items]
        tokenised = [index_terms(item.content) for item in items]
        self.doc_terms = [set(t) for t in tokenised]
        counts = [Counter(t) for t in tokenised]
        df = Counter()
        for c in counts:
            df.update(c.keys())
        n = len(items)
        self.idf = {t: math.log((n - d + 0.5) / (d + 0.5) + 1.0) for t, d in df.items()}
        self.postings: dict[str, list[tuple[int, float]]] = {}
        for i, c in enumerate(counts):
            weights = {t: (1.0 + math.log(tf)) * self.idf[t] for t, tf in c.items()}
            norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
            for t, w in weights.items():
                self.postings.setdefault(t, []).append((i, w / norm))

    def query_vector(self, query_terms: list[str]) -> dict[str, float]:
        c = Counter(t for t in query_terms if t in self.idf)
        weights = {t: (1.0 + math.log(tf)) * self.idf[t] for t, tf in c.items()}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {t: w / norm for t, w in weights.items()}

    def cosines(self, query_terms: list[str]) -> dict[int, float]:
        scores: dict[int, float] = {}
        for t, qw in self.query_vector(query_terms).items():
            for i, dw in self.postings[t]:
                scores[i] = scores.get(i, 0.0) + qw * dw
        return scores


class KeywordScorer:
    """1.0 when the whole query appears in the text, else the share of the query's terms the text
    holds, each term counted by its idf (a shared rare word says more than a shared common one)."""

    def __init__(self, query: str, query_terms: set[str], idf: dict[str, float]):
        self.needle = query.strip().lower()
        self.weights = {t: idf[t] for t in query_terms if t in idf}
        self.total = sum(self.weights.values())

    def score(self, lowered_content: str, content_terms: set[str]) -> float:
        if self.needle and self.needle in lowered_content:
            return 1.0
        if self.total <= 0:
            return 0.0
        return sum(w for t, w in self.weights.items() if t in content_terms) / self.total


class WorkingMemory:
    def __init__(
        self,
        max_capacity: int = 50,
        max_tokens: int = 2000,
        max_age_minutes: float | None = 120.0,
        decay_factor: float = 0.95,
        clock=time.time,
    ):
        self.max_capacity = max_capacity
        self.max_tokens = max_tokens
        self.max_age_minutes = max_age_minutes
        self.decay_factor = decay_factor
        self.clock = clock
        self.memories: list[MemoryItem] = []
        self.memory_heap: list[tuple[float, float, MemoryItem]] = []
        self.current_tokens = 0
        self._indexes: dict[str | None, _Index] = {}

    @classmethod
    def from_config(cls, cfg, clock=time.time) -> WorkingMemory:
        return cls(cfg.capacity, cfg.max_tokens, cfg.ttl_minutes, cfg.decay_factor, clock)

    def __len__(self) -> int:
        return len(self.memories)

    # -- adding -----------------------------------------------------------------------------

    def add(self, content: str, importance: float, timestamp: float | None = None, **fields) -> MemoryItem:
        now = self.clock()
        item = MemoryItem(content, importance, now if timestamp is None else timestamp, **fields)
        return self.add_item(item, now)

    def add_item(self, item: MemoryItem, now: float | None = None) -> MemoryItem:
        now = self.clock() if now is None else now
        self._expire_old_memories(now)
        priority = self._calculate_priority(item, now)
        self.memories.append(item)
        heapq.heappush(self.memory_heap, (priority, item.timestamp, item))
        self.current_tokens += item.tokens
        self._indexes = {}
        self._enforce_capacity_limits(now)
        return item

    # -- scores -----------------------------------------------------------------------------

    def _calculate_time_decay(self, timestamp: float, now: float) -> float:
        hours = max(0.0, now - timestamp) / 3600.0
        return max(DECAY_FLOOR, self.decay_factor ** (hours / DECAY_PERIOD_HOURS))

    def _calculate_priority(self, item: MemoryItem, now: float) -> float:
        return item.importance * self._calculate_time_decay(item.timestamp, now)

    # -- removal ----------------------------------------------------------------------------

    def _remove(self, item: MemoryItem) -> None:
        self.memories.remove(item)
        self.current_tokens -= item.tokens
        self._indexes = {}

    def _expire_old_memories(self, now: float) -> int:
        if self.max_age_minutes is None:
            return 0
        cutoff = now - self.max_age_minutes * 60
        old = [m for m in self.memories if m.timestamp < cutoff]
        for item in old:
            self._remove(item)
        if old:
            self._rebuild_heap(now)
        return len(old)

    def _rebuild_heap(self, now: float) -> None:
        """Priorities decay with time, so they are recomputed before choosing whom to drop."""
        self.memory_heap = [(self._calculate_priority(m, now), m.timestamp, m) for m in self.memories]
        heapq.heapify(self.memory_heap)

    def _remove_lowest_priority_memory(self) -> MemoryItem | None:
        live = {id(m) for m in self.memories}
        while self.memory_heap:
            _, _, item = heapq.heappop(self.memory_heap)
            if id(item) in live:
                self._remove(item)
                return item
        return None

    def _over_limits(self) -> bool:
        return len(self.memories) > self.max_capacity or self.current_tokens > self.max_tokens

    def _enforce_capacity_limits(self, now: float) -> list[MemoryItem]:
        removed = []
        if self._over_limits():
            self._rebuild_heap(now)
        while self._over_limits() and self.memories:
            removed.append(self._remove_lowest_priority_memory())
        return removed

    def remove(self, item_id: str) -> bool:
        for item in self.memories:
            if item.id == item_id:
                self._remove(item)
                return True
        return False

    def forget(
        self,
        strategy: str,
        threshold: float = 0.1,
        max_age_days: float = 7.0,
        now: float | None = None,
    ) -> list[MemoryItem]:
        """Forget by `importance_based` (below threshold), `time_based` (older than max_age_days) or
        `capacity_based` (lowest priority while over the limits). TTL expiry always runs first."""
        if strategy not in STRATEGIES:
            raise ValueError("strategy must be one of {}, got {!r}".format("|".join(STRATEGIES), strategy))
        now = self.clock() if now is None else now
        self._expire_old_memories(now)
        if strategy == "capacity_based":
            return self._enforce_capacity_limits(now)
        if strategy == "importance_based":
            doomed = [m for m in self.memories if m.importance < threshold]
        else:
            doomed = [m for m in self.memories if now - m.timestamp > max_age_days * 86400]
        for item in doomed:
            self._remove(item)
        self._rebuild_heap(now)
        return doomed

    # -- retrieval --------------------------------------------------------------------------

    def retrieve(
        self, query: str, limit: int = 5, user_id: str | None = None, now: float | None = None
    ) -> list[tuple[MemoryItem, float]]:
        """The `limit` best memories for `query`, best first, with their final scores."""
        now = self.clock() if now is None else now
        self._expire_old_memories(now)
        index = self._indexes.get(user_id)
        if index is None:
            # Filtering comes first (seed 002): term statistics are those of the user's own memories.
            mine = self.memories if user_id is None else [m for m in self.memories if m.user_id == user_id]
            index = self._indexes[user_id] = _Index(mine)
        query_terms = index_terms(query)
        query_set = set(query_terms)
        cosines = index.cosines(query_terms)
        candidates = set(cosines)
        keyword = KeywordScorer(query, query_set, index.idf)
        if keyword.needle and len(keyword.needle) <= CONTAINMENT_MAX_CHARS:
            # A short query found verbatim counts even when the tokenizer split its words differently.
            candidates.update(i for i, text in enumerate(index.lowered) if keyword.needle in text)
        scored = []
        for i in candidates:
            item = index.items[i]
            if item.forgotten:
                continue
            base = VECTOR_WEIGHT * cosines.get(i, 0.0) + KEYWORD_WEIGHT * keyword.score(index.lowered[i], index.doc_terms[i])
            if base <= 0:
                continue
            score = base * self._calculate_time_decay(item.timestamp, now) * (0.8 + item.importance * 0.4)
            scored.append((score, item.timestamp, item))
        best = heapq.nlargest(limit, scored, key=lambda s: (s[0], s[1]))
        return [(item, score) for score, _, item in best]

    # -- summary ----------------------------------------------------------------------------

    def get_context_summary(self, max_length: int = 2000) -> str:
        """Most important, then newest, memories as lines, filled greedily within `max_length`
        characters; the last one is cut to fit when at least 50 of its own characters still fit."""
        self._expire_old_memories(self.clock())
        ordered = sorted(
            (m for m in self.memories if not m.forgotten),
            key=lambda m: (m.importance, m.timestamp),
            reverse=True,
        )
        lines: list[str] = []
        used = 0
        for item in ordered:
            line = SUMMARY_BULLET + item.content
            extra = len(line) + (1 if lines else 0)
            if used + extra <= max_length:
                lines.append(line)
                used += extra
                continue
            room = max_length - used - (1 if lines else 0)
            kept = room - len(SUMMARY_BULLET) - len(SUMMARY_ELLIPSIS)
            if kept >= SUMMARY_MIN_CUT:
                lines.append(SUMMARY_BULLET + item.content[:kept] + SUMMARY_ELLIPSIS)
            break
        return "\n".join(lines)

    # -- persistence ------------------------------------------------------------------------

    def to_records(self) -> list[dict]:
        return [m.to_record() for m in self.memories]

    def load_records(self, records: list[dict]) -> None:
        now = self.clock()
        for record in records:
            self.add_item(MemoryItem.from_record(record), now)


def relevance(query: str, documents: list[str]) -> list[float]:
    """The hybrid base relevance (cosine * 0.7 + keyword * 0.3) of each document, without decay or
    importance: used to pick which long-term memories a prompt should see."""
    items = [MemoryItem(d, 0.5, 0.0) for d in documents]
    index = _Index(items)
    query_terms = index_terms(query)
    query_set = set(query_terms)
    cosines = index.cosines(query_terms)
    keyword = KeywordScorer(query, query_set, index.idf)
    return [
        VECTOR_WEIGHT * cosines.get(i, 0.0) + KEYWORD_WEIGHT * keyword.score(index.lowered[i], index.doc_terms[i])
        for i in range(len(documents))
    ]
