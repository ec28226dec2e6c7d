"""The process's own fork server for CPU runs (kernelopt.worker.forkpool.shared_cpu_pool): which variables
give a run a server of its own, and that the gate's CPU runs are children of one server, each a fresh child."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kernelopt.harness.gate import check_files
from kernelopt.harness.runner import worker_env
from kernelopt.harness.settings import HarnessSettings
from kernelopt.worker.forkpool import import_key, server_key, shared_cpu_pool

from .conftest import KERNELS


def test_only_variables_read_after_the_imports_may_differ_from_the_servers() -> None:
    base = {"PATH": "/usr/bin", "TRITON_INTERPRET": "1", "HOME": "/a", "KERNELOPT_BENCH_S": "1", "TMPDIR": "/t"}
    late = base | {"HOME": "/b", "KERNELOPT_BENCH_S": "0.1", "TMPDIR": "/u", "MALLOC_PERTURB_": "128"}
    late |= {"TORCHINDUCTOR_CACHE_DIR": "/tmp/torchinductor_root"}  # written by torch._dynamo's import
    assert import_key(late) == import_key(base)
    for name, value in (("TRITON_INTERPRET", "0"), ("OMP_NUM_THREADS", "1"), ("PYTHONPATH", "/src")):
        assert import_key(base | {name: value}) != import_key(base)


def test_a_coding_agents_path_settings_and_secrets_share_the_server() -> None:
    """A test's fake CLI first on PATH, matplotlib's folder, a coding agent's settings and a secret (dropped
    from every child's environment) give a run no server of its own: each cost a fresh torch import."""
    base = {"PATH": "/usr/bin", "HOME": "/a", "OMP_NUM_THREADS": "2"}
    agent = base | {
        "PATH": "/tmp/fake-claude:/usr/bin",
        "MPLCONFIGDIR": "/run/matplotlib",
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "DISABLE_TELEMETRY": "1",
        "OPENAI_API_KEY": "sk-test",
        "MY_API_TOKEN": "t",
    }
    assert server_key(agent) == server_key(base)
    assert server_key(base | {"OMP_NUM_THREADS": "1"}) != server_key(base)


def test_cpu_runs_are_fresh_children_of_one_server(tmp_path: Path) -> None:
    settings = HarnessSettings(device="cpu", seeds=1)
    for k in range(2):
        report = check_files(
            KERNELS / "add_kernel.py", KERNELS / "add_reference.py", tmp_path / f"state{k}", settings=settings
        )
        assert report.passed, report.message
    pool = shared_cpu_pool(worker_env(None, {"KERNELOPT_WORKER": "1"}, device="cpu"))
    assert pool is not None and pool.ready is not None
    assert pool.launches >= 2 and pool.ready.pid != os.getpid()


def test_the_dtype_probe_on_the_cpu_is_a_child_of_the_gates_server_and_keeps_its_limit(tmp_path: Path) -> None:
    import sys

    from kernelopt.harness.infer import infer_dtype
    from kernelopt.worker.forkpool import run_forked

    env = worker_env(device="cpu")
    pool = shared_cpu_pool(env)
    assert pool is not None
    before = pool.launches
    found = infer_dtype(KERNELS / "add_reference.py", device="cpu")
    assert found.value == "fp32" and pool.launches == before + 1  # forked, not a new interpreter
    hang = tmp_path / "hang_reference.py"
    hang.write_text("import time\ntime.sleep(60)\n")
    argv = [sys.executable, "-m", "kernelopt.harness.infer", str(hang)]
    res = run_forked(argv, timeout_s=1.0, env=env)
    assert res is not None and res.timed_out and res.returncode is None and res.duration_s < 10
    assert run_forked([sys.executable, "-c", "print(1)"], timeout_s=5.0, env=env) is None  # no entry point


def test_a_run_that_leaves_triton_interpret_unset_shares_the_server_of_one_that_sets_it() -> None:
    env = worker_env(None, {"KERNELOPT_WORKER": "1"}, device="cpu")
    assert env["TRITON_INTERPRET"] == "1"
    unset = {k: v for k, v in env.items() if k != "TRITON_INTERPRET"}
    # a TRITON_INTERPRET=0 left in the shell is overridden on the CPU (issue 35, defect 7): the same server
    assert server_key(unset) == server_key(env) == server_key(env | {"TRITON_INTERPRET": "0"})
    assert shared_cpu_pool(unset) is shared_cpu_pool(env) is not None


def test_a_sandbox_that_forbids_sockets_falls_back_to_a_fresh_process(tmp_path: Path, monkeypatch) -> None:
    """Codex's workspace-write sandbox refuses connect() on the fork server's socket (EPERM): an agent's
    `python test_kernel.py` then runs its check in a fresh process instead of failing (issue 33)."""
    import socket

    from kernelopt.worker import forkpool

    real_connect = socket.socket.connect

    def refused(self: socket.socket, address: object) -> None:
        if self.family == socket.AF_UNIX:
            raise PermissionError(1, "Operation not permitted")
        real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", refused)
    monkeypatch.setattr(forkpool, "_shared_broken", False)  # put back as it was after the test
    monkeypatch.setenv("OMP_NUM_THREADS", "3")  # a server of its own, not one other tests share
    settings = HarnessSettings(device="cpu", seeds=1)
    report = check_files(KERNELS / "add_kernel.py", KERNELS / "add_reference.py", tmp_path / "state", settings=settings)
    assert report.passed, report.message
    assert shared_cpu_pool(worker_env(None, {"KERNELOPT_WORKER": "1"}, device="cpu")) is None


def test_a_deep_temporary_folder_gets_an_abstract_socket_whatever_its_length(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A coding agent's scratch TMPDIR inside a deep pytest folder made "AF_UNIX path too long" for the pool's
    socket, and so did a TMPDIR of 27+ characters under pytest-xdist (leftovers10): the pool was unavailable and each
    run a fresh interpreter. The socket is now an abstract one there (Linux): no file, the folder's length does not
    count, and the pool opens; elsewhere the pool says it is unavailable, and its callers run the child in a fresh
    process (as where a sandbox refuses the socket)."""
    import socket
    import sys
    import tempfile

    from kernelopt.worker import forkpool
    from kernelopt.worker.forkserver import _own_user, socket_address

    monkeypatch.setattr(tempfile, "tempdir", "/tmp")
    assert forkpool.socket_fits()
    deep = tmp_path / ("d" * 80)
    deep.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(deep))
    assert not forkpool.socket_fits()
    name, folder = forkpool.server_socket()
    assert folder is None and name.startswith("@kernelopt-pool-") and socket_address(name) == "\0" + name[1:]
    with forkpool.ForkPool(tmp_path / "run", warm_device="cpu", lifetime_s=30) as pool:
        pool.open()
        assert pool.ready is not None and pool.ready.pid != os.getpid()
    assert not list(deep.iterdir())  # nothing made
    a, b = socket.socketpair(socket.AF_UNIX)
    with a, b:
        assert _own_user(a)  # the server's peer check: a peer of this user is taken
    monkeypatch.setattr(sys, "platform", "darwin")  # no abstract sockets
    with pytest.raises(forkpool.PoolUnavailable, match="too long for the worker pool's socket"):
        forkpool.ForkPool(tmp_path / "run2", warm_device="cpu", lifetime_s=10).open()
    assert not list(deep.iterdir())


@pytest.mark.skipif(os.geteuid() != 0, reason="connecting as another user needs root to change user")
def test_the_fork_server_turns_away_a_peer_of_another_user() -> None:
    """An abstract socket has no folder whose permissions keep other users out: the server takes a peer of its own
    user only (SO_PEERCRED). A process of another user (nobody, 65534) connecting first is turned away."""
    import socket
    import uuid

    from kernelopt.worker.forkserver import _own_user, socket_address

    name = socket_address(f"@kernelopt-test-{uuid.uuid4().hex}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with listener:
        listener.bind(name)
        listener.listen(2)
        listener.settimeout(20)
        pid = os.fork()
        if pid == 0:  # the other user: connect, wait to be closed, leave without running pytest's exit
            try:
                os.setgid(65534)
                os.setuid(65534)
                peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                peer.connect(name)
                peer.recv(1)
            finally:
                os._exit(0)
        try:
            theirs, _ = listener.accept()
            mine = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            mine.connect(name)
            ours, _ = listener.accept()
            with theirs, mine, ours:
                assert not _own_user(theirs) and _own_user(ours)
        finally:
            os.waitpid(pid, 0)
