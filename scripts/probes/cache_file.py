"""The terminal's cache file: who can read it, which files are refused, and what `digest`, `card`
and `doctor` print on a tampered file and on a full disk.

    .venv/bin/python scripts/dev_fakes.py --date 2026-08-05     # in another terminal; then its exports
    sudo -E PYTHONPATH=. .venv/bin/python scripts/probes/cache_file.py [--code DIR]

Runs `prdigest` as a user would (`python -m bot.cli.main`, from `--code`: default this checkout;
another checkout measures the code before a change) under umask 022, against the fakes that
GITHUB_API_URL and OPENAI_BASE_URL name, with REDIS_URL unset, so the store is a SQLite file.
Prints the modes of a new file, its -wal, -shm and directory; what another account reads of it;
what becomes of a file of another user, a group-writable one and an older version's 0644 one; and
for each command the exit status, the lines it printed (stdout and stderr), the lines beyond a
good run's and the tracebacks, on a cache whose values and then whose expiries were made TEXT,
and on a 64 kB tmpfs left full. Root only: an account to read as (`useradd`), the tmpfs (`mount`).
"""

from __future__ import annotations

import argparse
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path
from tempfile import TemporaryDirectory

from scripts.probes.served import PRODUCT_ENV_PREFIXES, ROOT

REPO = "vllm-project/vllm"
DAY = "2026-08-05"
READER = "prdigest-probe"  # the other account
COMMANDS = {
    "digest": ["digest", REPO, "--date", DAY],
    "card": ["card", f"{REPO}#38771"],
    "doctor": ["doctor"],
}
FAKES = ("GITHUB_API_URL", "GITHUB_TOKEN", "OPENAI_BASE_URL", "OPENAI_API_KEY")
# A process that holds the store open, as a digest does, and prints the modes meanwhile.
HOLDER = textwrap.dedent(
    """
    import os, stat, sys
    from bot.settings import load_settings
    from bot.wiring.store import choose_store
    settings = load_settings()
    chosen = choose_store(settings, lambda line: None)
    chosen.kv.set("probe", b"x", ttl=60)
    path = settings.cache
    for place in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"), path.parent):
        shown = f"{stat.S_IMODE(place.stat().st_mode):04o}" if place.exists() else "absent"
        print(f"{place.name}: {shown}")
    chosen.close()
    """
)


def environment(cache: Path | None, home: Path) -> dict[str, str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
    fakes = {name: os.environ[name] for name in FAKES if name in os.environ}
    env = clean | fakes | {"XDG_CACHE_HOME": str(home), "PRDIGEST_CONFIG": ""}
    return env | ({"PRDIGEST_CACHE": str(cache)} if cache else {})


def run(code: Path, env: dict[str, str], argv: list[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "bot.cli", *argv]
    env = env | {"PYTHONPATH": str(code)}
    return subprocess.run(command, env=env, cwd=code, capture_output=True, text=True, timeout=300, check=False)


def lines(done: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    """How many lines the command printed on stdout, and on stderr."""
    return len(done.stdout.splitlines()), len(done.stderr.splitlines())


def modes(code: Path, home: Path) -> None:
    env = environment(None, home)
    done = subprocess.run(
        [sys.executable, "-c", HOLDER],
        env=env | {"PYTHONPATH": str(code)},
        cwd=code,
        capture_output=True,
        text=True,
        check=False,
    )
    print("modes while a run holds the file open:", "; ".join(done.stdout.split("\n")).strip("; ") or done.stderr)


def other_reader(path: Path) -> None:
    if os.getuid() != 0:
        print("another account: not tried (not root)")
        return
    try:
        pwd.getpwnam(READER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", READER], check=True)
    read = subprocess.run(["runuser", "-u", READER, "--", "cat", str(path)], capture_output=True, check=False)
    said = read.stderr.decode(errors="replace").strip()
    print(f"as {READER}: cat {path} -> exit {read.returncode}, {len(read.stdout)} bytes read; {said}")


def refusals(code: Path, work: Path) -> None:
    """A file of another user (writable by all), a group-writable one, an older version's 0644 one."""
    if os.getuid() == 0:
        theirs = work / "theirs" / "cache.sqlite3"
        theirs.parent.mkdir(mode=0o700)
        sqlite3.connect(theirs).close()
        reader = pwd.getpwnam(READER)
        os.chown(theirs, reader.pw_uid, reader.pw_gid)
        os.chmod(theirs, 0o666)
        done = run(code, environment(theirs, work / "xdg"), COMMANDS["digest"])
        print(f"another user's file, mode 0666: exit {done.returncode}; {done.stderr.strip().splitlines()[-1]}")
    shared = work / "shared" / "cache.sqlite3"
    shared.parent.mkdir(mode=0o700)
    sqlite3.connect(shared).close()
    os.chmod(shared, 0o664)
    done = run(code, environment(shared, work / "xdg"), COMMANDS["digest"])
    print(f"our own file, mode 0664: exit {done.returncode}; {done.stderr.strip().splitlines()[-1]}")
    old = work / "old-home"
    (old / "prdigest").mkdir(parents=True)
    sqlite3.connect(old / "prdigest" / "cache.sqlite3").close()
    os.chmod(old / "prdigest", 0o755)
    os.chmod(old / "prdigest" / "cache.sqlite3", 0o644)
    done = run(code, environment(None, old), COMMANDS["digest"])
    after = [
        f"{os.stat(place).st_mode & 0o777:04o}" for place in (old / "prdigest" / "cache.sqlite3", old / "prdigest")
    ]
    print(
        f"an older version's 0644 file in a 0755 directory: exit {done.returncode}; now file {after[0]}, dir {after[1]}"
    )


def tamper(path: Path, column: str) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    if column == "value":
        db.execute("UPDATE kv SET value = CAST(value AS TEXT)")
    else:  # a number in TEXT would be stored as REAL again (the column's affinity): a word stays TEXT
        db.execute("UPDATE kv SET expires = 'tomorrow'")
    db.close()


def report(
    code: Path, env: dict[str, str], what: str, good: dict[str, tuple[int, int]], commands: dict[str, list[str]]
) -> None:
    for name, argv in commands.items():
        done = run(code, env, argv)
        out, err = lines(done)
        tracebacks = done.stderr.count("Traceback (most recent call last)")
        print(
            f"{what:<18} {name:<7} exit {done.returncode}, stdout {out:>3} lines (a good run {good[name][0]}), "
            f"stderr {err:>3} ({err - good[name][1]:+} beyond a good run's), {tracebacks} traceback(s)"
        )
        extra = [line for line in done.stderr.splitlines() if "cache file" in line]
        for line in extra[:3]:
            print(f"{'':<27}| {line}")
        if len(extra) > 3:
            print(f"{'':<27}| … {len(extra) - 3} more such lines")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--code", type=Path, default=ROOT)
    code = parser.parse_args().code.resolve()
    if "GITHUB_API_URL" not in os.environ:
        sys.exit("GITHUB_API_URL is not set: export what scripts/dev_fakes.py prints first")
    os.umask(0o022)
    print(f"code: {code}")
    with TemporaryDirectory() as kept:
        work = Path(kept)
        os.chmod(work, 0o755)  # as a home's parent is: other accounts may pass through it
        home = work / "xdg"
        env = environment(None, home)
        good = {name: lines(run(code, env, argv)) for name, argv in COMMANDS.items()}
        path = home / "prdigest" / "cache.sqlite3"
        print(f"a good run prints (stdout, stderr) lines: {good}")
        print(
            f"after a digest: file {path.stat().st_mode & 0o777:04o}, "
            f"directory {path.parent.stat().st_mode & 0o777:04o}"
        )
        modes(code, home)
        other_reader(path)
        refusals(code, work)
        for column in ("value", "expires"):
            # Each command on its own tampered copy: a digest rewrites the rows a card would read.
            for name, argv in COMMANDS.items():
                fresh = work / f"tampered-{column}-{name}"
                shutil.copytree(home, fresh)
                tamper(fresh / "prdigest" / "cache.sqlite3", column)
                report(code, environment(None, fresh), f"TEXT {column}", good, {name: argv})
        if os.getuid() != 0:
            print("full disk: not tried (not root)")
            return
        full = work / "full"
        full.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", str(full)], check=True)
        try:
            report(code, environment(full / "cache.sqlite3", home), "full disk (64 kB)", good, COMMANDS)
            usage = subprocess.run(
                ["df", "--output=used,avail", str(full)], capture_output=True, text=True, check=False
            )
            print(f"{'':<27}tmpfs used/available (kB): {' '.join(usage.stdout.split()[2:])}")
        finally:
            subprocess.run(["umount", str(full)], check=False)


if __name__ == "__main__":
    main()
