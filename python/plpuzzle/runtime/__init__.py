"""The engine layer every puzzle plugs into.

- status: one Status for how a run ended, and the one mapping from a
  worker's or the Prolog bridge's outcome to it;
- worker / child: killable worker processes (the parent's and the child's
  side) where every engine's search runs;
- prolog: the embedded SWI-Prolog that the child drives through pyswip;
- answers: reading what the Prolog bridge answers;
- adapters: PythonInWorker and PrologInWorker, which a puzzle's engines
  subclass.
"""

from plpuzzle.runtime.adapters import LoadReport, PrologInWorker, PythonInWorker, WorkerEngine
from plpuzzle.runtime.answers import (
    Answer,
    UndecodableAnswer,
    decode_answer,
    decode_only_answer,
    only_answer,
)
from plpuzzle.runtime.prolog import (
    DEFAULT_DIALECT,
    DIALECTS,
    Dialect,
    LoadProblem,
    prolog_dir,
    prolog_file,
    quote_atom,
)
from plpuzzle.runtime.status import Status, failure_words, status_label, status_of
from plpuzzle.runtime.worker import (
    DEFAULT_TIME_LIMIT,
    GRACE_SECONDS,
    WORKER_LIMITS,
    EngineUnavailable,
    Outcome,
    Worker,
    WorkerCrashed,
    WorkerError,
    WorkerTimeout,
    call_request,
    prolog_request,
)

__all__ = [
    "DEFAULT_DIALECT",
    "DEFAULT_TIME_LIMIT",
    "DIALECTS",
    "GRACE_SECONDS",
    "WORKER_LIMITS",
    "Answer",
    "Dialect",
    "EngineUnavailable",
    "LoadProblem",
    "LoadReport",
    "Outcome",
    "PrologInWorker",
    "PythonInWorker",
    "Status",
    "UndecodableAnswer",
    "Worker",
    "WorkerCrashed",
    "WorkerEngine",
    "WorkerError",
    "WorkerTimeout",
    "call_request",
    "decode_answer",
    "decode_only_answer",
    "failure_words",
    "only_answer",
    "prolog_dir",
    "prolog_file",
    "prolog_request",
    "quote_atom",
    "status_label",
    "status_of",
]
