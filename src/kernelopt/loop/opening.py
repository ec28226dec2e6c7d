"""Find or make the workspace ``kernelopt optimize PATH`` works on.

PATH is either an existing workspace, or a folder with ``kernel.py`` + ``reference.py`` (and optionally
a ``README.md`` task card) from which ``<root>/kernel_opt_<name>/`` is created. Running the command again
on the same folder opens the workspace made the first time, so that the loop continues where it stopped.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from kernelopt.errors import GitError, InputFileError, KerneloptError, WorkspaceError
from kernelopt.harness.infer import PROBE_TIMEOUT_S, Inferred, infer_dtype, infer_gpu, shapes_by_code
from kernelopt.kernelsource import why_missing
from kernelopt.loop.ending import END_PREFIX
from kernelopt.oneline import one_line, shell_word
from kernelopt.workspace import (
    DEFAULT_ROOT,
    PREFIX,
    Workspace,
    default_name,
    has_workspace_state,
    looks_like_workspace,
    validate_name,
)

BASELINE_PREFIX = "V0: baseline"


@dataclass
class OpenedWorkspace:
    """The workspace, whether it was created now, and a note for the user (or None)."""

    workspace: Workspace
    created: bool
    note: str | None = None


def is_workspace(path: Path) -> bool:
    """True when ``path`` looks like a kernelopt workspace (kernel.py, reference.py, test_kernel.py, .git), or is one
    a file of which was deleted (its git and ``memory/``): opening it says which and how to restore it, where it was
    taken for a task folder ("has no kernel.py; a task folder holds kernel.py and reference.py")."""
    return looks_like_workspace(path) or has_workspace_state(path)


def baseline_commit(ws: Workspace) -> str | None:
    """The (short) hash of the V0 baseline commit, or None when V0 is not committed yet."""
    for short, subject in ws.log(max_count=1_000_000):
        if subject.startswith(BASELINE_PREFIX):
            return short
    return None


def changed_truth(ws: Workspace, *, new_run: bool) -> WorkspaceError | None:
    """The one-line refusal when a file the run takes as given changed since it was committed, or None.

    No committed record (``memory/v<N>.json``) may be deleted, HEAD must be on a branch (a checkout of an old
    version, HEAD detached, ran the next version on it: the branch's later versions out of sight, the new one on no
    branch); ``reference.py`` (the ground truth) must be V0's (the init commit's before V0); ``test_kernel.py`` and,
    for a new run, the task card ``README.md`` must be as committed at HEAD. Such a change made
    between runs is refused, never used silently: a changed reference would make every later speedup
    and correctness verdict incomparable with the earlier ones. (A task-card edit while a run is
    stopped is accepted, with a note, by the resumed run; a committed task-card edit is the user's.)
    """
    deleted = ws.deleted_records()
    if deleted:
        root, first = shell_word(ws.root), next(iter(deleted)).removeprefix("memory/").removesuffix(".json")
        return WorkspaceError(
            f"{ws.root}: {', '.join(deleted)} deleted since committed: without a version's record the run takes it "
            "for never run (its best version, the kernel.py a run ends on, would be judged without it)",
            hint=f"restore it ({ws.restore_records(deleted)}); to set a version aside, mask it "
            f"(kernelopt memory mask --workspace {root} {first})",
        )
    if ws.branch() is None:
        short, subject = ws.log(max_count=1)[0]
        branches = ws.repo.git.for_each_ref("--format=%(refname:short)", "refs/heads/").split()
        root = shell_word(ws.root)
        return WorkspaceError(
            f"{ws.root}: HEAD is detached at {short} ({one_line(subject, 60)}), on no branch: the versions a run "
            "recorded here would belong to no branch, and the branch's later versions are not in this checkout",
            hint=f"go back to the branch (git -C {root} checkout {branches[0] if len(branches) == 1 else 'BRANCH'})"
            + (f"; its branches: {', '.join(branches)}" if len(branches) > 1 else "")
            + "; to look at a version, git show or git worktree add leave the workspace as it is",
        )
    v0 = baseline_commit(ws)
    checks = [
        ("reference.py", v0 or "HEAD", f"V0's ({v0})" if v0 else "the committed one"),
        ("test_kernel.py", "HEAD", "the committed one"),
    ]
    if new_run:
        checks.append(("README.md", "HEAD", "the committed one"))
        by_hand = kernel_changed_by_hand(ws)
        if by_hand is not None:
            return by_hand
    for rel, ref, what in checks:
        path = ws.root / rel
        try:
            same = path.is_file() and ws.file_at(ref, rel).encode("utf-8") == path.read_bytes()
        except GitError:  # not in that commit
            same = not path.exists()
        if same:
            continue
        if rel == "README.md":
            hint = f"commit it (git -C {ws.root} commit README.md) or restore it (git -C {ws.root} checkout README.md)"
        else:
            hint = f"restore it (git -C {ws.root} checkout {ref} -- {rel}), or start a new workspace (--name NEW)"
        return WorkspaceError(f"{path} differs from {what} since the last run: refusing to use it", hint=hint)
    return None


#: The subject of a commit the loop made that sets kernel.py: a version's (a PASS, ``V3: ...``, or a FAIL's revert
#: marker, ``V3: revert``) and the end of a run's (``end of run: kernel.py = V1, the fastest passing version``).
LOOP_SUBJECT = re.compile(rf"^(V\d+: |{re.escape(END_PREFIX)})")


def kernel_changed_by_hand(ws: Workspace) -> WorkspaceError | None:
    """The one-line refusal when HEAD's kernel.py is not that of the loop's last version commit, or None.

    Between runs kernel.py is the loop's: every version is one change it gated and committed. A kernel.py the user
    changed and committed by hand (as the refusal of an uncommitted change once told them to) was taken in by
    the next version unsaid: its record credited the version's one action with both changes ("autotune: BLOCK
    1024 -> 4096", 49x over V0, where V0 had 64), or the loop stopped "converged: the launch configuration of
    this kernel.py was tuned in v2" over a kernel.py no session had seen. (A commit made while a run was
    interrupted is the resume's: :mod:`kernelopt.loop.resume` goes on from it and says so.)"""
    if baseline_commit(ws) is None:
        return None
    short, subject = next(c for c in ws.log(max_count=1_000_000) if LOOP_SUBJECT.match(c[1]))
    try:
        if ws.bytes_at(short, "kernel.py") == ws.bytes_at("HEAD", "kernel.py"):
            return None
    except GitError:  # kernel.py deleted in a commit: the workspace's own check names it
        return None
    commits = ws.repo.git.log("--format=%h %s", f"{short}..HEAD", "--", "kernel.py").splitlines()
    said = "; ".join(one_line(c, 80) for c in commits[:3]) + (f"; {len(commits) - 3} more" if len(commits) > 3 else "")
    root = shell_word(ws.root)
    return WorkspaceError(
        f"{ws.kernel_py} was changed by hand since the loop last set it ({short} {one_line(subject, 60)}), in {said}: "
        "the next version would take that change in as its own, never gated alone",
        hint=f"put the loop's back (git -C {root} checkout {short} -- kernel.py && git -C {root} commit -m "
        f"'kernel.py as the loop left it' kernel.py), or start a workspace from yours (kernelopt init NEW --kernel "
        f"{shell_word(ws.kernel_py)} --reference {shell_word(ws.reference_py)})",
    )


def changed_reference(ws: Workspace) -> str | None:
    """For the stand-alone commands (validate, implement), which run on the files as they are: a warning
    when ``reference.py`` differs from V0's (or, before V0, from the committed one), else None. The loop
    refuses such a file (:func:`changed_truth`); a command says it, so the truth never changes silently."""
    v0 = baseline_commit(ws)
    ref = v0 or "HEAD"
    try:
        same = ws.file_at(ref, "reference.py").encode("utf-8") == ws.reference_py.read_bytes()
    except (GitError, OSError):
        return None
    if same:
        return None
    what = f"V0's ({v0})" if v0 else "the committed one"
    return (
        f"{ws.reference_py} differs from {what}: this command checks kernel.py against the changed file, and its "
        f"figures do not compare with the records' (git -C {ws.root} diff {ref} -- reference.py)"
    )


def _same_text(ws: Workspace, ref: str, rel: str, source: Path) -> bool:
    # git show strips the final newline: compare without trailing newlines.
    return ws.bytes_at(ref, rel).rstrip(b"\n") == source.read_bytes().rstrip(b"\n")


def target_of(path: Path, *, name: str | None = None, root: Path | None = None) -> Path:
    """The workspace folder ``open_or_create`` would use for ``path`` (nothing is created)."""
    path = Path(path).expanduser()
    if path.is_dir() and is_workspace(path):
        return path.resolve()
    parent = Path(root).expanduser() if root is not None else DEFAULT_ROOT
    return parent.resolve() / f"{PREFIX}{validate_name(name or default_name(path))}"


def find_existing(path: Path, *, name: str | None = None, root: Path | None = None) -> Workspace | None:
    """The workspace ``open_or_create`` would open, when it exists already (nothing is created)."""
    target = target_of(path, name=name, root=root)
    return Workspace(target) if target.is_dir() and is_workspace(target) else None


def check_task_folder(path: Path) -> None:
    """Check that ``path`` is a folder with kernel.py and reference.py (what a new workspace is made from).

    Raises:
        InputFileError: ``path`` does not exist, is a file, or lacks kernel.py or reference.py; its reference.py
            builds a ``SHAPES`` that names no case (:func:`~kernelopt.harness.infer.shapes_by_code`).
    """
    path = Path(path).expanduser()
    if not path.exists():
        raise InputFileError(path, why_missing(path, "folder"), hint="give a folder with kernel.py and reference.py")
    if not path.is_dir():
        raise InputFileError(
            path, "is a file, not a folder", hint="give the folder that holds kernel.py and reference.py"
        )
    for required in ("kernel.py", "reference.py"):
        file = path / required
        if not file.is_file():
            said = (path, f"has no {required}") if why_missing(file) == "no such file" else (file, why_missing(file))
            raise InputFileError(*said, hint="a task folder holds kernel.py and reference.py [+ README.md]")
    shapes_by_code(path / "reference.py")  # a SHAPES built by code that names no case: one line, nothing made


@contextmanager
def run_locks(path: Path, target: Path, *, command: str = "optimize") -> Iterator[None]:
    """The locks a run from ``path`` takes before it opens or makes its workspace ``target``, in one place for
    ``optimize`` (held for the whole run) and ``batch`` (for each problem's opening): the workspace's
    (:class:`~kernelopt.workspace.RunLock`; ``tune WS``, ``optimize WS`` and the stages take it too), and, where
    ``path`` is a user's folder, that folder's (:func:`~kernelopt.workspace.kernel_locks`, the ones ``tune`` and
    ``tunables --set`` take to write its kernel.py), shared: a run only reads it.

    ``tune DIR`` beside ``optimize DIR`` took one lock each: it wrote DIR/kernel.py while the run worked from the copy
    it had taken, and the run's last line still said DIR/kernel.py was as the user left it (newuser19's seen item;
    late27, z51); runs of one folder into two workspaces (``--name``) share it (z54). ``batch`` made and re-made its
    problems' workspaces (a re-made one removed first) under neither lock: under a ``tune WS`` of one of them, and
    reading DIR under a ``tune DIR`` (late29, z73).

    Raises:
        UsageError: another command holds one of them (its pid and start in the message).
    """
    from kernelopt.workspace import RunLock, kernel_locks

    with ExitStack() as held:
        held.enter_context(RunLock(target, command=command))
        folder = Path(path).expanduser()
        if folder.resolve() != target and (folder / "kernel.py").exists():
            held.enter_context(
                kernel_locks(
                    folder / "kernel.py",
                    command=command,
                    hint="wait for it to end, or stop it: a run reads the kernel.py it writes",
                    reading=True,
                )
            )
        yield


def open_or_create(
    path: Path, *, name: str | None = None, root: Path | None = None, reuse: bool = False
) -> OpenedWorkspace:
    """The workspace for ``kernelopt optimize PATH``.

    Args:
        path: a workspace, or a folder with kernel.py + reference.py [+ README.md].
        name: workspace name (default: from the folder's name, see :func:`default_name`).
        root: parent of the workspace (default /tmp, as the spec says).
        reuse: continue an existing workspace even when its V0 differs from PATH's sources
            (``--reuse-workspace``); without it that is an error.

    Raises:
        InputFileError: PATH is neither a workspace nor a folder with kernel.py and reference.py; its
            reference.py builds a ``SHAPES`` that names no case.
        WorkspaceError: the name is invalid, ``<root>/kernel_opt_<name>`` exists but is no workspace,
            or its V0 differs from PATH's kernel.py / reference.py and ``reuse`` is not set.
    """
    path = Path(path).expanduser()
    if path.is_dir() and is_workspace(path):
        ws = Workspace(path)  # a workspace whose kernel.py or reference.py was deleted: that, and how to restore it
        shapes_by_code(ws.reference_py)  # a SHAPES built by code that names no case: one line, before the loop
        return OpenedWorkspace(ws, created=False)
    check_task_folder(path)
    ws_name = validate_name(name or default_name(path))
    parent = Path(root).expanduser() if root is not None else DEFAULT_ROOT
    target = parent.resolve() / f"{PREFIX}{ws_name}"
    if target.exists():
        ws = Workspace(target)
        same_sources = all((path / f).read_bytes() == (ws.root / f).read_bytes() for f in ("kernel.py", "reference.py"))
        v0 = baseline_commit(ws)
        if v0 is None:
            if same_sources:
                return OpenedWorkspace(ws, created=False)
            # Nothing but the init commit: make it again from the (changed) sources.
            ws = _create(ws_name, path, parent, force=True)
            return OpenedWorkspace(ws, created=True, note=f"re-created {ws.root} from {path} (no baseline yet)")
        note = None
        differ = [f for f in ("kernel.py", "reference.py") if not _same_text(ws, v0, f, path / f)]
        if differ == ["kernel.py"] and _same_text(ws, "HEAD", "kernel.py", path / "kernel.py"):
            # the user took the run's kernel into their folder (`cp WS/kernel.py DIR/kernel.py`, as the run's last line
            # says): the workspace goes on from it (newuser19 n135; it was refused as a workspace made from another)
            return OpenedWorkspace(
                ws,
                created=False,
                note=f"continuing {ws.root}: {path / 'kernel.py'} is its kernel.py as its last run left it",
            )
        if differ and not reuse:
            raise WorkspaceError(
                f"the existing workspace {ws.root} was made from another {' and '.join(differ)} than {path}'s "
                "(its V0 differs)",
                hint="pass --name NEW to start a new workspace, or --reuse-workspace to continue this one anyway",
            )
        if differ:
            note = f"continuing the existing workspace {ws.root}, whose V0 differs from {path} (--reuse-workspace)"
        return OpenedWorkspace(ws, created=False, note=note)
    return OpenedWorkspace(_create(ws_name, path, parent), created=True)


def _create(ws_name: str, path: Path, parent: Path, *, force: bool = False) -> Workspace:
    """The workspace made from the folder ``path``: its kernel.py, reference.py and README.md (when there)."""
    card = path / "README.md"
    return Workspace.create(
        ws_name,
        kernel=path / "kernel.py",
        reference=path / "reference.py",
        root=parent,
        task_card=card if card.is_file() else None,
        force=force,
    )


def card_beside(kernel: Path) -> Path | None:
    """The ``README.md`` in the kernel's folder, when there is one (the task card ``init`` takes by default)."""
    card = Path(kernel).expanduser().resolve().parent / "README.md"
    return card if card.is_file() else None


def fill_new_card(
    ws: Workspace, *, device: str | None, announce: Callable[[str], None] | None = None
) -> list[Inferred]:
    """:func:`fill_card` for a workspace this command has just created: when the probe fails (reference.py
    hangs at import), the workspace goes with the error, so that the same command can run again once
    reference.py is fixed (nothing of the user's is in it: copies of their files); so when an interrupt (Ctrl-C,
    SIGTERM) cuts the probe: the same command then makes it again, where "already exists; pass --force" was said."""
    try:
        return fill_card(ws, device=device, announce=announce)
    except (KerneloptError, KeyboardInterrupt):
        shutil.rmtree(ws.root, ignore_errors=True)
        raise


def fill_card(ws: Workspace, *, device: str | None, announce: Callable[[str], None] | None = None) -> list[Inferred]:
    """Infer the ``dtype`` and ``gpu`` the task card leaves out, write them into README.md and commit it.

    Only fields the card does not set are touched; what was inferred (or why not) is returned for the
    command to say, and ``announce`` is told before the probe runs (it runs reference.py: seconds, up to
    its limit). Called when a workspace is created (``init``, ``optimize`` on a task folder), never
    during a run.

    Raises:
        InputFileError: the probe of reference.py ran past its limit (it hangs at import or in get_inputs).
    """
    card = ws.task_card()
    found: list[Inferred] = []
    if card.dtype is None:
        if announce is not None:
            announce(f"dtype: probing reference.py's inputs and outputs (at most {PROBE_TIMEOUT_S:g} s)")
        found.append(infer_dtype(ws.reference_py, device=device or "auto"))
    if card.gpu is None:
        found.append(infer_gpu(device))
    changed = [f for f in found if f.value is not None]
    if not changed:
        return found
    for f in changed:
        setattr(card, f.field, f.value)
    ws.readme.write_text(card.render(), encoding="utf-8")
    ws.commit(["README.md"], "task card: " + ", ".join(f"{f.field} {f.value} (inferred)" for f in changed))
    return found
