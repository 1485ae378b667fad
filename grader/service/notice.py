"""Notice new hand-ins as they land: file system events on the exchange's ``inbound/``, with
polling as the fallback.

:class:`Wakeup` is the one thing the service's loop waits on. It is set by

- an inotify (or the platform's) event on ``inbound/`` itself, through the ``watchdog`` library:
  a hand-in folder created, renamed or removed there. The watch is not recursive: nothing below
  ``inbound/`` (students' folders, whatever they hold) is walked or watched, so a hostile tree
  costs the service nothing. ``nbgrader submit`` writes the submission secret last, inside the
  folder, which no event of ``inbound/`` reports: the loop looks again every
  :data:`SETTLING_SECONDS` while a folder changed recently and is not complete yet
  (``GradingLoop`` decides that);
- a grading that finished (the pool future's callback);
- the poll timer, every ``poll_seconds``, which stays the only signal where events are not
  delivered (network file systems, a plug-in exchange, ``watchdog`` missing).
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path

log = logging.getLogger("grader.watch")

SETTLING_SECONDS = 0.02  # between two looks at a hand-in folder nbgrader submit is still writing


class Wakeup:
    """An event the loop waits on; :meth:`watch` adds file system events of one folder."""

    def __init__(self):
        self._event = threading.Event()
        self._observer = None
        self.watched: Path | None = None

    def set(self, *_args) -> None:
        self._event.set()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for a wake-up; True when one came. Clears it before returning."""
        woken = self._event.wait(max(0.0, seconds))
        self._event.clear()
        return woken

    def watch(self, folder: Path) -> bool:
        """Deliver events of ``folder`` (not of its subfolders); True when they are delivered.

        False when ``watchdog`` is missing or the folder cannot be watched (it does not exist
        yet, no inotify instance is left): the poll timer alone wakes the loop then.
        """
        if self._observer is not None and self.watched == folder:
            return True
        try:
            from watchdog.events import FileSystemEventHandler
            from watchdog.observers import Observer
        except ImportError:
            return False
        wakeup = self

        class _Handler(FileSystemEventHandler):
            def on_any_event(self, event):
                if event.event_type not in ("opened", "closed", "closed_no_write"):
                    wakeup.set()

        observer = Observer()
        try:
            observer.schedule(_Handler(), str(folder), recursive=False)
            observer.daemon = True
            observer.start()
        except Exception as exc:  # OSError (no inotify watch left), a missing folder
            log.info("no file system events from %s (%s); polling it", folder, exc)
            return False
        self.close()
        self._observer, self.watched = observer, folder
        log.info("noticing hand-ins in %s from file system events", folder)
        return True

    def close(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        self._observer, self.watched = None, None
