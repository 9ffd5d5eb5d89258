"""The reporting database: ARCo's tables and views in DuckDB, fed exactly once.

Two ways in. The accounting actor hands over batches of reporting(5) lines, each with
the sequence number of the master's outbox entry (`ingest_stream`; configuration changes
come this way too, as lines of a type no file holds: config_history.py); `gridd dbwriter`
reads accounting(5) files (colon or JSON lines) and reporting(5) files (`ingest_file`).
Either way a step is one transaction that also records how far it got (the records'
sequence numbers, each with its line's digest, or the file's byte offset, one per file),
so a crash at any point leaves each record in the database once or not yet. A sequence
number alone names no record: after `gridd spool restore` the master gives the backup's
numbers out again, to new records.

Records are split and cast by DuckDB (record_sql) and mapped onto ARCo's tables set-wise
(arco_sql): per-row Python work is what
kills ingest rates, so Python only joins lines into one string per batch. Turning
records into ARCo's rows takes a dozen statements of some milliseconds each, whatever
their size; so a stream batch is first stored whole in the inbox (one row, one cheap
transaction) and the inbox is folded into the tables FOLD_ROWS records at a time, or
once its oldest batch waits FOLD_SECONDS, or when asked (`settle`). The `accounting`
view reads the inbox too; ARCo's other views show a record once it is folded.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from gridd.accounting import arco_sql as arco
from gridd.accounting import record_sql, schema
from gridd.accounting.file_marks import FileMark, is_reporting, read_lines
from gridd.accounting.record import FIELDS, TIME_FIELDS, AccountingRecord, acct_line
from gridd.accounting.record_json import first_record, json_line

CHUNK_BYTES = 32 << 20  # file bytes per transaction
FOLD_ROWS = 50_000  # inbox records that are folded at once
FOLD_SECONDS = 5.0  # the longest a batch waits in the inbox while batches keep coming
CHECKPOINT_MB = 64  # WAL size at which DuckDB writes the database file

Progress = Callable[[int, int, int], None]  # bytes done, bytes in the file, records read



@dataclass
class Ingested:
    """What a call took in."""

    records: int = 0  # records read (lines, less comments and those already ingested)
    accounting: int = 0  # accounting records that became sge_job_usage rows
    duplicates: int = 0  # records skipped as already ingested
    rejected: int = 0  # malformed records, left out
    first_rejected: str | None = None  # the first of them ("type:fields"), for a message

    def add(self, other: Ingested) -> None:
        self.records += other.records
        self.accounting += other.accounting
        self.duplicates += other.duplicates
        self.rejected += other.rejected
        self.first_rejected = self.first_rejected or other.first_rejected


def open_db(path: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """Open the database for writing, creating or migrating it as needed."""
    con = duckdb.connect(str(path))
    try:
        # a full inbox and a fold fit in the WAL before DuckDB checkpoints; with its
        # default of 16 MB it would write inbox batches to the file that the fold deletes
        con.execute(f"SET checkpoint_threshold = '{CHECKPOINT_MB}MB'")
        schema.migrate(con)
        if schema.has_table(con, schema.FLAT_TABLE):
            _adopt_flat_table(con)
        settle(con)  # what a crashed writer left in the inbox
    except Exception:
        con.close()
        raise
    return con


def confine(con: duckdb.DuckDBPyConnection, staging: Path) -> None:
    """Keep the database from every file but its own and those in `staging`, for good:
    users' SQL reaches it through the master, which must not read /etc/shadow or write
    anywhere for them. DuckDB allows neither setting to change back while it runs."""
    (enabled,) = con.execute("SELECT current_setting('enable_external_access')").fetchone()
    if not enabled:  # the same database again in this process: confined already
        return
    staging.mkdir(mode=0o700, parents=True, exist_ok=True)
    for left in staging.iterdir():  # what an export that died left
        left.unlink(missing_ok=True)
    folder = "'" + str(staging).replace("'", "''") + "/'"
    con.execute(f"SET allowed_directories = [{folder}]")
    con.execute("SET enable_external_access = false")


def ingest_stream(con: duckdb.DuckDBPyConnection, items: list[tuple[int, str]]) -> Ingested:
    """Take reporting(5) lines (without newline) keyed by outbox sequence number.

    Records already ingested (a batch re-sent after a crash: the same seqs with the same
    lines), or whose seq is repeated within the batch, are skipped; the rest is stored in
    the inbox in one transaction. When the inbox is due, it is folded too, and the result
    counts what that moved into the tables (`accounting`, `rejected`: records of earlier
    calls among them).
    """
    unique: dict[int, str] = {}
    for seq, line in items:  # the master gives a seq out once in the actor's life
        unique.setdefault(seq, line)
    if not unique:
        return Ingested()
    first, last = min(unique), max(unique)
    with _transaction(con):
        known, overlapping, waiting, oldest = con.execute(
            f"SELECT (SELECT list((seq, digest)) FROM gridd_ingested_seq "
            f"        WHERE seq BETWEEN {first} AND {last}), "
            f"       count(*) FILTER (first_seq <= {last} AND last_seq >= {first}), "
            f"       coalesce(sum(records), 0), min(received) FROM gridd_inbox").fetchone()
        if not overlapping:
            fresh = _unknown(unique, known or ())
            if fresh:
                _to_inbox(con, fresh)
    if overlapping:  # a resent batch meets its first copy: fold, and the ledger tells
        folded = settle(con)
        return _combine(ingest_stream(con, items), folded)
    taken = Ingested(records=len(fresh), duplicates=len(items) - len(fresh))
    now = time.time()
    if oldest is None:
        oldest = now if fresh else None
    due = waiting + len(fresh) >= FOLD_ROWS or (
        oldest is not None and now - oldest >= FOLD_SECONDS)
    return _combine(taken, settle(con)) if due else taken


def _unknown(batch: dict[int, str], known: list[tuple[int, str | None]]) -> dict[int, str]:
    """The records of `batch` the ledger lacks, given its (seq, digest) rows in the
    batch's range. A seq names a record with its line's digest: a restored spool gives
    the seqs out again, to other records. A row without a digest (ingested before the
    ledger kept them) stands for any record of its seq."""
    if not known:
        return batch
    digests: dict[int, set[str | None]] = defaultdict(set)
    for seq, digest in known:
        digests[seq].add(digest)
    return {seq: line for seq, line in batch.items()
            if not (seq in digests and (None in digests[seq] or _digest(line) in digests[seq]))}


def _digest(line: str) -> str:
    """A line's digest as the ledger keeps it: _DIGEST_SQL in Python."""
    return hashlib.md5(line.encode(), usedforsecurity=False).hexdigest()[:16]


_DIGEST_SQL = "left(md5(line), 16)"


def _combine(taken: Ingested, folded: Ingested) -> Ingested:
    """A call's result: what it took in, and what its fold moved into the tables (the
    fold's records were counted when they were taken in)."""
    taken.add(replace(folded, records=0, duplicates=0))
    return taken


def accounting_records(con: duckdb.DuckDBPyConnection) -> int:
    """The accounting records the database holds, its inbox's among them."""
    (count,) = con.execute("SELECT count(*) FROM accounting").fetchone()
    return count


def settle(con: duckdb.DuckDBPyConnection) -> Ingested:
    """Fold the inbox into ARCo's tables now (one transaction), e.g. before reports."""
    with _transaction(con):
        (waiting,) = con.execute("SELECT count(*) FROM gridd_inbox").fetchone()
        if not waiting:
            return Ingested()
        lines = ("SELECT unnest(string_split(seqs, chr(10)))::BIGINT AS ord, "
                 "unnest(string_split(lines, chr(10))) AS line FROM gridd_inbox")
        staged = _split_kind(lines, f"{_DIGEST_SQL} AS digest")
        con.execute(f"CREATE OR REPLACE TEMP TABLE gridd_stage AS {staged}")
        con.execute("INSERT INTO gridd_ingested_seq SELECT ord, digest FROM gridd_stage")
        done = _load_stage(con)
        con.execute("DELETE FROM gridd_inbox")
        return done


def ingest_file(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str],
                progress: Progress | None = None) -> Ingested:
    """Ingest an accounting(5) or reporting(5) file from where the last call stopped.

    Each chunk of whole lines goes in one transaction with the file's new offset; a last
    line without its newline (being written) is left for the next call. A file whose
    head changed (rotated, replaced) is read from the start.
    """
    path = Path(path)
    total = Ingested()
    with path.open("rb") as f:
        size = os.fstat(f.fileno()).st_size
        mark = FileMark.load(con, path, f, size)
        first = first_record(f)
        reporting = is_reporting(first)
        kind = "acct_json" if json_line(first) else "acct"
        f.seek(mark.offset)
        if progress:
            progress(mark.offset, size, 0)
        while chunk := read_lines(f, CHUNK_BYTES):
            text = chunk.decode("utf-8", errors="replace")
            with _transaction(con):
                done = _ingest_text(con, text, None if reporting else kind)
                mark.advance(len(chunk), text.count("\n"))
                mark.save(con)
            total.add(done)
            if progress:
                progress(mark.offset, size, total.records)
    return total


# --- staging -----------------------------------------------------------------------------

def _split_kind(source: str, *more: str) -> str:
    """Stage reporting lines "time:type:fields" as kind and body (the fields), and `more`
    columns computed from the line."""
    kind = record_sql.kind_of("type")
    return (f"SELECT ord, {kind} AS kind, line[strpos(line, ':') + strlen(type) + 2:] AS body"
            f"{''.join(', ' + column for column in more)} "
            f"FROM (SELECT ord, line, split_part(line, ':', 2) AS type FROM ({source}))")


def _to_inbox(con: duckdb.DuckDBPyConnection, batch: dict[int, str]) -> None:
    lines = "\n".join(batch.values())
    if lines.count("\n") != len(batch) - 1:
        raise ValueError("a reporting line holds a newline")
    con.execute(
        "INSERT INTO gridd_inbox (first_seq, last_seq, records, received, seqs, lines) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [min(batch), max(batch), len(batch), time.time(), "\n".join(map(str, batch)), lines])


def _ingest_text(con: duckdb.DuckDBPyConnection, text: str, kind: str | None) -> Ingested:
    """Stage a chunk's lines, those of a reporting file (`kind` None) by their type field,
    an accounting file's as `kind` (acct, or acct_json for JSON lines), and load them."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    lines = ("SELECT row_number() OVER () AS ord, line "
             "FROM (SELECT unnest(string_split($1, chr(10))) AS line) "
             "WHERE line <> '' AND line[1] <> '#'")
    staged = _split_kind(lines) if kind is None else (
        f"SELECT ord, '{kind}' AS kind, line AS body FROM ({lines})")
    con.execute(f"CREATE OR REPLACE TEMP TABLE gridd_stage AS {staged}", [text])
    return _load_stage(con)


def _load_stage(con: duckdb.DuckDBPyConnection) -> Ingested:
    """Turn the staged records into rows; the caller holds the transaction."""
    counts = dict(con.execute("SELECT kind, count(*) FROM gridd_stage GROUP BY kind").fetchall())
    done = Ingested(records=sum(counts.values()))
    kinds = {record_sql.PARSED_AS.get(kind, kind) for kind in counts}
    kinds &= set(record_sql.KINDS)
    for kind in kinds:
        con.execute(record_sql.parse(kind))
    _add_names(con, kinds)
    if kinds & {"acct", "job_log", "new_job"}:
        done.accounting = _load_jobs(con, kinds)
    if kinds & {"new_ar", "ar_attr", "ar_log", "ar_acct"}:
        con.execute(arco.ar_keys(kinds))
        for sql in arco.NEW_ARS:
            con.execute(sql)
        for kind, statements in arco.AR_RECORDS.items():
            for sql in statements if kind in kinds else ():
                con.execute(sql)
    for kind, sql in arco.INSERTS.items():
        if kind in kinds:
            con.execute(sql)
    done.rejected, first = con.execute(record_sql.rejected(kinds)).fetchone()
    if done.rejected:
        kind, body = con.execute(
            "SELECT kind, body FROM gridd_stage WHERE ord = ?", [first]).fetchone()
        done.first_rejected = f"{kind}:{body}"
    return done


def _add_names(con: duckdb.DuckDBPyConnection, kinds: set[str]) -> None:
    """Add the users, hosts, queues... the dimension tables lack: usually none are new, so
    one query finds out and inserts follow only for the tables that need them."""
    query = arco.new_names(kinds)
    if not query:
        return
    new: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
    for table, a, b in con.execute(query).fetchall():
        new[table].append((a, b))
    for dim in arco.DIMENSIONS:
        if names := new.get(dim.table):
            params = [[a for a, _ in names]]
            if len(dim.name_columns) > 1:
                params.append([b for _, b in names])
            con.execute(arco.add_names(dim), params)


def _load_jobs(con: duckdb.DuckDBPyConnection, kinds: set[str]) -> int:
    """Jobs, their usage, requests and log; returns the usage rows added."""
    con.execute(arco.job_keys(kinds))
    (known_by_acct,) = con.execute(arco.KNOWN_JOBS).fetchone()
    con.execute(arco.NEW_JOBS)
    added = 0
    if "acct" in kinds:
        if known_by_acct:
            con.execute(arco.UPDATE_JOBS)
        (added,) = con.execute(arco.usage(known_by_acct > 0)).fetchone()
        con.execute(arco.requests(known_by_acct > 0))
    if "job_log" in kinds:
        con.execute(arco.JOB_LOG)
    return int(added)


# --- transactions and the flat table of old --------------------------------------------

@contextmanager
def _transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """BEGIN … COMMIT, or ROLLBACK when the body raises."""
    con.execute("BEGIN")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def _adopt_flat_table(con: duckdb.DuckDBPyConnection) -> None:
    """Load the rows of gridd's former flat table, keeping their sequence numbers."""
    columns = ", ".join(
        f"coalesce(epoch({name})::BIGINT, 0)" if name in TIME_FIELDS else f'"{name}"'
        for name in FIELDS)
    rows = con.execute(
        f"SELECT seq, {columns} FROM {schema.FLAT_TABLE} ORDER BY seq").fetchall()
    with _transaction(con):
        if rows:
            _to_inbox(con, {row[0]: acct_line(AccountingRecord(*row[1:])) for row in rows})
        con.execute(f"DROP TABLE {schema.FLAT_TABLE}")
