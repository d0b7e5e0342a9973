"""A real Virtuoso (Debian's virtuoso-opensource) for the SPARQL differential tests.

`VirtuosoServer` starts `virtuoso-t` in the foreground on 127.0.0.1 with a temporary database
folder and a generated virtuoso.ini (two free ports: ISQL and HTTP), bulk-loads N-Triples files
with ld_dir / rdf_loader_run through isql, serves SPARQL at /sparql, and stops the process it
started by its PID. The session fixture `virtuoso` starts one server for the whole run (startup
takes seconds); each KB goes into its own named graph, queried with ``default-graph-uri``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

HOST = "127.0.0.1"
VIRTUOSO = shutil.which("virtuoso-t")
ISQL = shutil.which("isql-vt") or shutil.which("isql")
INSTALL = "DEBIAN_FRONTEND=noninteractive apt-get install -y virtuoso-opensource"

INI = """\
[Database]
DatabaseFile = {d}/virtuoso.db
ErrorLogFile = {d}/virtuoso.log
LockFile = {d}/virtuoso.lck
TransactionFile = {d}/virtuoso.trx
xa_persistent_file = {d}/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = {d}/virtuoso-temp.db
TransactionFile = {d}/virtuoso-temp.trx

[Parameters]
ServerPort = {host}:{isql}
DisableUnixSocket = 1
CheckpointInterval = 0
DirsAllowed = ., {d}
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
ThreadsPerQuery = 2
MaxClientConnections = 8

[HTTPServer]
ServerPort = {host}:{http}
ServerRoot = {d}
ServerThreads = 4
MaxClientConnections = 8
EnabledGzipContent = 0

[SPARQL]
ResultSetMaxRows = 10000000
MaxQueryExecutionTime = 300
MaxQueryCostEstimationTime = 0
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class VirtuosoServer:
    """One virtuoso-t process on loopback, with its own database folder."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.isql_port, self.http_port = free_port(), free_port()
        self.process: subprocess.Popen | None = None
        self.endpoint = f"http://{HOST}:{self.http_port}/sparql"

    def start(self, wait: float = 90.0) -> None:
        ini = self.folder / "virtuoso.ini"
        ini.write_text(INI.format(d=self.folder, host=HOST, isql=self.isql_port,
                                  http=self.http_port))
        log = (self.folder / "stdout.log").open("wb")
        self.process = subprocess.Popen([VIRTUOSO, "+foreground", "+configfile", str(ini)],
                                        cwd=self.folder, stdout=log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"virtuoso-t exited with {self.process.returncode}: "
                                   f"{self.log_tail()}")
            if self._answers():
                return
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"virtuoso-t did not answer within {wait:g} s: {self.log_tail()}")

    def _answers(self) -> bool:
        query = urllib.parse.urlencode({"query": "ASK {}"})
        try:
            with urllib.request.urlopen(f"{self.endpoint}?{query}", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    def isql(self, statements: str, timeout: float = 600) -> str:
        """Run SQL statements through isql as dba (a fresh database's password is dba)."""
        script = self.folder / f"script-{time.monotonic_ns()}.sql"
        script.write_text(statements)
        done = subprocess.run([ISQL, f"{HOST}:{self.isql_port}", "dba", "dba", str(script)],
                              capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0 or "*** Error" in done.stdout:
            raise RuntimeError(f"isql failed: {done.stdout[-2000:]} {done.stderr[-2000:]}")
        return done.stdout

    def load(self, ntriples: Path, graph: str) -> None:
        """Bulk-load one N-Triples file into `graph`."""
        folder = self.folder / f"load-{time.monotonic_ns()}"
        folder.mkdir()
        shutil.copy(ntriples, folder / "data.nt")
        self.isql(f"ld_dir('{folder}', 'data.nt', '{graph}');\nrdf_loader_run();\ncheckpoint;\n"
                  "SELECT ll_file, ll_error FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;\n")
        errors = self.isql("SELECT COUNT(*) FROM DB.DBA.load_list WHERE ll_error IS NOT NULL;")
        if "\n0\n" not in errors.replace(" ", ""):
            raise RuntimeError(f"virtuoso could not load {ntriples}: {errors}")

    def graph_endpoint(self, graph: str) -> str:
        """The SPARQL URL whose default graph is `graph`."""
        return f"{self.endpoint}?{urllib.parse.urlencode({'default-graph-uri': graph})}"

    def stop(self) -> None:
        """Stop the process this object started, by its PID."""
        if self.process is None or self.process.poll() is not None:
            return
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=30)

    def log_tail(self) -> str:
        log = self.folder / "virtuoso.log"
        return log.read_text(errors="replace")[-1500:] if log.exists() else "(no log)"


@pytest.fixture(scope="session", name="virtuoso")
def virtuoso_fixture():
    """A running Virtuoso for the session; fails (not skips) when it is not installed."""
    if VIRTUOSO is None or ISQL is None:
        pytest.fail(f"virtuoso-t / isql-vt not found; install them with: {INSTALL}")
    folder = Path(tempfile.mkdtemp(prefix="koplc-virtuoso-"))
    server = VirtuosoServer(folder)
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
