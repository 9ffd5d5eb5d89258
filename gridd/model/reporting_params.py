"""reporting_params' choice of the accounting file's form, which qconf checks and the
master reads: gridd's accounting_format, or Open Cluster Scheduler's old_accounting
(true: Grid Engine 8.1.9's colon lines, false: JSON lines, OCS's default)."""

from __future__ import annotations

from gridd.model.values import parse_bool

ACCOUNTING_FORMATS = ("colon", "json")


def accounting_format(words: dict[str, str], *, lenient: bool = False) -> str | None:
    """The form reporting_params' `words` (name -> value) choose, None when they name
    none; ValueError, saying why, for an unknown form or two choices that disagree.
    `lenient` (the master reading a configuration spooled before qconf checked it):
    where the words are wrong, accounting_format's word if it is a form, else none."""
    try:
        return _chosen(words)
    except ValueError:
        if not lenient:
            raise
        chosen = words.get("accounting_format", "").lower()
        return chosen if chosen in ACCOUNTING_FORMATS else None


def _chosen(words: dict[str, str]) -> str | None:
    chosen = words.get("accounting_format")
    if chosen is not None and chosen.lower() not in ACCOUNTING_FORMATS:
        raise ValueError(f'"{chosen}" is no accounting_format (colon or json)')
    old = words.get("old_accounting")
    if old is None:
        return chosen and chosen.lower()
    by_old = "colon" if parse_bool(old) else "json"
    if chosen is not None and chosen.lower() != by_old:
        raise ValueError(f"accounting_format={chosen} and old_accounting={old} disagree")
    return by_old
