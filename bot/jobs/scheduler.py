"""Scheduler: posts each channel's digest at its local time (and its weekly roll-up on its day),
and each watcher's DM at 09:00 of theirs (watches/dms.py), in every replica; and polls
followed repositories for merged PRs whose cards the workers should make before they are due
(cards/poller.py).

Each plan is posted by its own workspace's DigestPosting (`for_team`): that workspace's client
and ledger. Every replica runs one; the post lease and the ledger make sure exactly one of them posts a
given (channel, day). A replica that starts after post time still posts that day's digest.

While Redis cannot be reached nothing is posted (the ledger and the lease live there): the
outage is logged once, kept in `problem` for /healthz, and the tick after Redis answers again
posts what is due.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor

from bot.channels import ChannelPlan
from bot.digests import DigestPosting, LeaseLost
from bot.errors import PrdigestError, StoreError
from bot.watches import DueWatchDM, WatchDMs

log = logging.getLogger(__name__)

# Digests are due at minute granularity; checking twice a minute is prompt and costs a few
# Redis reads per channel.
TICK_SECONDS = 30.0
PARALLEL_CHANNELS = 4
# After a failed run (GitHub or Slack down), try that channel again this much later.
RETRY_SECONDS = 600.0
REDIS_UNREACHABLE = "redis unreachable"
# How long stopping waits for the jobs already running: a post sees the stop before its next
# message, a poll ends with its listing; well inside the 150 s of a pod's grace period.
STOP_WAIT_SECONDS = 10.0
# The poll's name among the running jobs (a channel id never looks like it).
POLL = "poll:merged"


class Scheduler:
    def __init__(
        self,
        plans: Sequence[ChannelPlan] | Callable[[], Sequence[ChannelPlan]],
        digests: DigestPosting,
        *,
        tick: float = TICK_SECONDS,
        for_team: Callable[[str | None], DigestPosting] | None = None,
        watch_dms: Callable[[], Sequence[WatchDMs]] | None = None,
        poll: Callable[[], object] | None = None,
    ) -> None:
        # Followed repositories' merged PRs, their cards queued before they are due (None: none).
        self._poll = poll
        # A callable is asked at every tick: channels followed from Slack (on any replica) are
        # read from the store, so a change takes effect at the next tick without a restart.
        self._plans = plans if callable(plans) else (lambda: tuple(plans))
        self._digests = digests
        self._for_team = for_team
        # Every workspace's watches, asked at every tick like the plans (None: no personal DMs).
        self._watch_dms = watch_dms
        self._tick = tick
        self._stop = threading.Event()
        self._running: set[str] = set()
        self._retry_at: dict[str, float] = {}
        self._lock = threading.Lock()
        self._problem: str | None = None
        self._pool = ThreadPoolExecutor(max_workers=PARALLEL_CHANNELS, thread_name_prefix="digest")
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)

    @property
    def problem(self) -> str | None:
        """Why digests cannot be posted right now (None when they can), for /healthz."""
        return self._problem

    @property
    def busy(self) -> bool:
        """Whether a digest is being built or posted in this process right now."""
        with self._lock:
            return bool(self._running)

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop ticking, and give the jobs already running a moment to end (each sees the stop
        before its next post), so the clients they use are not closed under them; a job still
        running after that is left to the process's exit."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while self.busy and time.monotonic() < deadline:
            time.sleep(0.05)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.tick()
            self._stop.wait(self._tick)

    def tick(self) -> None:
        # One read of the ledger per tick, due or not: the outage is noticed (and its end) even
        # when no channel is due, so /healthz says what is true.
        try:
            self._digests.check_store()
        except StoreError:
            self._set_problem(REDIS_UNREACHABLE)
            return
        self._set_problem(None)
        for plan in self._plans():
            # A day's digest under the channel's id, its weekly roll-up under "{id}:week".
            for key, weekly in ((plan.id, False), (f"{plan.id}:week", True)):
                if self._stop.is_set():
                    return
                with self._lock:
                    if key in self._running or time.monotonic() < self._retry_at.get(key, 0.0):
                        continue
                try:
                    posting = self._of(plan)
                    due = posting.weekly_due(plan) if weekly else posting.due(plan)
                except StoreError:
                    self._set_problem(REDIS_UNREACHABLE)
                    return
                except Exception:  # a bad tick must not end the loop
                    log.exception("could not check whether %s is due", key)
                    continue
                if due:
                    with self._lock:
                        self._running.add(key)
                    self._pool.submit(self._run, plan, key, weekly)
        self._tick_alerts()
        self._tick_poll()

    def _tick_poll(self) -> None:
        if self._poll is None or self._stop.is_set():
            return
        with self._lock:
            if POLL in self._running:
                return  # the last poll still lists
            self._running.add(POLL)
        self._pool.submit(self._run_poll)

    def _run_poll(self) -> None:
        try:
            assert self._poll is not None
            self._poll()
        except Exception:  # a bad poll must not end the loop; the next tick polls again
            log.exception("polling for merged PRs failed")
        finally:
            with self._lock:
                self._running.discard(POLL)

    def _tick_alerts(self) -> None:
        if self._watch_dms is None or self._stop.is_set():
            return
        try:
            due = [(job, alert) for job in self._watch_dms() for alert in job.due()]
        except StoreError:
            self._set_problem(REDIS_UNREACHABLE)
            return
        except Exception:  # a bad tick must not end the loop
            log.exception("could not check which watch DMs are due")
            return
        for job, alert in due:
            key = f"alert:{job.team}:{alert.user}"
            with self._lock:
                if key in self._running or time.monotonic() < self._retry_at.get(key, 0.0):
                    continue
                self._running.add(key)
            self._pool.submit(self._run_alert, key, job, alert)

    def _run_alert(self, key: str, job: WatchDMs, alert: DueWatchDM) -> None:
        try:
            sent = job.send(alert, stopping=self._stop)
            if sent:
                log.info("watch DM of %s for %s sent", alert.user, alert.day)
        except (StoreError, LeaseLost) as exc:
            if isinstance(exc, StoreError):
                self._set_problem(REDIS_UNREACHABLE)
            log.warning("watch DM of %s paused: %s", alert.user, exc)
        except Exception as exc:
            if self._stop.is_set():
                log.warning("watch DM of %s interrupted by shutdown; the next run finishes it", alert.user)
            else:
                if isinstance(exc, PrdigestError):
                    log.warning("watch DM of %s failed, retrying in %.0f s: %s", alert.user, RETRY_SECONDS, exc)
                else:
                    log.exception("watch DM of %s failed", alert.user)
                self._retry_at[key] = time.monotonic() + RETRY_SECONDS
        finally:
            with self._lock:
                self._running.discard(key)

    def _of(self, plan: ChannelPlan) -> DigestPosting:
        """The DigestPosting of the plan's workspace: its client, its ledger."""
        return self._digests if self._for_team is None else self._for_team(plan.team)

    def _set_problem(self, problem: str | None) -> None:
        if problem == self._problem:
            return  # once per outage, not once per tick
        if problem is not None:
            log.warning("%s: no digest is posted until Redis answers again", problem)
        else:
            log.warning("Redis answers again: due digests are posted now")
        self._problem = problem

    def _run(self, plan: ChannelPlan, key: str, weekly: bool) -> None:
        what = "roll-up" if weekly else "digest"
        try:
            posting = self._of(plan)
            if weekly:
                result = posting.run_weekly(plan, stopping=self._stop)
            else:
                result = posting.run_scheduled(plan, stopping=self._stop)
            if result is not None:
                log.info(
                    "%s for %s: %d messages posted, %d already there", what, plan.id, result.posted, result.already
                )
        except (StoreError, LeaseLost) as exc:
            # Not the channel's fault: the next tick that reaches Redis and finds the lease free
            # finishes the digest from the ledger.
            if isinstance(exc, StoreError):
                self._set_problem(REDIS_UNREACHABLE)
            log.warning("%s for %s paused: %s", what, plan.id, exc)
        except Exception as exc:
            if self._stop.is_set():
                # Clients are closed under a digest that was running at shutdown: not a bug.
                log.warning("%s for %s interrupted by shutdown; the next run finishes it", what, plan.id)
            elif isinstance(exc, PrdigestError):
                log.warning("%s for %s failed, retrying in %.0f s: %s", what, plan.id, RETRY_SECONDS, exc)
                self._retry_at[key] = time.monotonic() + RETRY_SECONDS
            else:
                log.exception("%s for %s failed", what, plan.id)
                self._retry_at[key] = time.monotonic() + RETRY_SECONDS
        finally:
            with self._lock:
                self._running.discard(key)
