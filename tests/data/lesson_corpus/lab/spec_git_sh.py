# ruff: noqa
# Capture script used to produce the corpus (run from /work/corpus_lab with ruamel.yaml); kept for the record.
import subprocess
from harness import case

def sh(cmd, cwd="/work/corpus_lab/gitproj"):
    subprocess.run(cmd, shell=True, check=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

G = "gitproj"; S = "shproj"; GV = "git --version"
sh("git checkout -q main && git reset -q --hard && git clean -qfd -e notes.txt -e fix.patch")
case("git-push-rejected-non-fast-forward", "git", G, "git push origin main", "git",
     "! [rejected]        main -> main (non-fast-forward)", [],
     "Run `git pull --rebase origin main` (or fetch and merge) to integrate the remote's new commit before pushing main again; never force-push a shared branch.",
     files=["README.md"], version_cmd=GV)
case("git-pull-divergent-branches", "git", G, "git pull", "git",
     "fatal: Need to specify how to reconcile divergent branches.", [],
     "Say how to integrate when main has diverged: `git pull --rebase` (or set `pull.rebase` once) instead of a bare `git pull`.",
     files=["README.md"], version_cmd=GV)
sh("git rebase --abort || true; git checkout -q main; git reset -q --hard")
case("git-merge-conflict", "git", G, "git merge feature/shout", "git",
     "CONFLICT (content): Merge conflict in src/greet.py", ["src/greet.py"],
     "Resolve the conflict markers in src/greet.py, keeping both the f-string and the upper-casing, then `git add src/greet.py` and `git commit`; do not pick one side wholesale.",
     version_cmd=GV)
sh("git merge --abort")
sh("git checkout -q feature/port")
case("git-rebase-conflict", "git", G, "git rebase main", "git",
     "CONFLICT (content): Merge conflict in src/settings.py", ["src/settings.py"],
     "Edit src/settings.py to the intended `PORT`, `git add` it and `git rebase --continue`; if unsure which port wins, `git rebase --abort` and ask.",
     version_cmd=GV, note="git printed a carriage-return progress line (Rebasing (1/1)); the output is stored as an exact double-quoted string")
sh("git rebase --abort; git checkout -q main")
sh("printf 'def greet(name: str) -> str:\\n    return f\"Hi, {name}\"\\n' > src/greet.py")
case("git-checkout-local-changes-overwritten", "git", G, "git checkout feature/shout", "git",
     "error: Your local changes to the following files would be overwritten by checkout:", ["src/greet.py"],
     "Commit or `git stash` the edit to src/greet.py before switching to feature/shout.",
     version_cmd=GV, fix=("git stash && git checkout feature/shout", "correction"))
sh("git checkout -q main; git stash drop -q || true; git reset -q --hard")
case("git-commit-nothing-added", "git", G, "git commit -m 'Add release notes'", "git",
     "nothing added to commit but untracked files present", ["notes.txt"],
     "Stage the new file first: `git add notes.txt && git commit -m 'Add release notes'`.",
     version_cmd=GV)
case("git-apply-patch-does-not-apply", "git", G, "git apply fix.patch", "edit",
     "error: patch failed: src/greet.py:1", ["src/greet.py", "fix.patch"],
     "Regenerate fix.patch against the current src/greet.py (it now uses an f-string) or make the edit directly; a stale patch will not apply.",
     version_cmd=GV)
case("patch-hunk-failed", "patch", G, "patch -p1 < fix.patch", "edit",
     "Hunk #1 FAILED at 1.", ["src/greet.py", "fix.patch"],
     "Edit src/greet.py directly or rebuild fix.patch from the current file; delete the src/greet.py.rej that the failed hunk left behind.",
     version_cmd="patch --version")
sh("rm -f src/greet.py.rej src/greet.py.orig")
case("sed-inplace-missing-file", "sed", G, "sed -i 's/PORT = 8000/PORT = 8001/' src/setings.py", "edit",
     "sed: can't read src/setings.py: No such file or directory", ["src/settings.py"],
     "Check the path before editing in place: the file is src/settings.py, not src/setings.py.",
     version_cmd="sed --version")
# shell project
case("shellcheck-deploy-unquoted-vars", "shellcheck", S, "shellcheck scripts/deploy.sh", "lint",
     "SC2034", ["scripts/deploy.sh"],
     "Quote `\"$target\"` and `\"$build_dir\"`, write `cd \"$build_dir\" || exit 1`, and drop the unused `unused_flag` in scripts/deploy.sh.",
     version_cmd="shellcheck --version | sed -n 2p")
case("shellcheck-backup-posix-sh", "shellcheck", S, "shellcheck scripts/backup.sh", "lint",
     "SC2006", ["scripts/backup.sh"],
     "Loop over the glob directly (`for f in *.db`), use `$(...)` instead of backticks, and compare with `=` in scripts/backup.sh, which runs under `/bin/sh`.",
     version_cmd="shellcheck --version | sed -n 2p")
case("bash-syntax-error-unexpected-eof", "bash", S, "bash -n scripts/broken.sh", "shell",
     "syntax error near unexpected token `done'", ["scripts/broken.sh"],
     "Close the `if` with `fi` before `done` in scripts/broken.sh.",
     version_cmd="bash --version")
case("make-recipe-permission-denied", "make", S, "make release", "permissions",
     "./scripts/deploy.sh: Permission denied", ["scripts/deploy.sh"],
     "Make scripts/deploy.sh executable (`chmod +x scripts/deploy.sh`, and commit the mode) or call it as `bash scripts/deploy.sh` in the Makefile.",
     files=["scripts/deploy.sh", "Makefile"], version_cmd="make --version")
case("shfmt-command-not-found", "bash", S, "shfmt -d scripts", "dependencies",
     "shfmt: command not found", [],
     "Check that a tool is installed (`command -v shfmt`) before relying on it; use `shellcheck scripts/*.sh`, which is available here.",
     files=["scripts/deploy.sh"], version_cmd="bash --version")
case("cd-missing-directory", "bash", S, "cd frontend && npm test", "shell",
     "cd: frontend: No such file or directory", [],
     "List the project root before changing into a directory: this repository has no frontend/ directory.",
     files=["Makefile"], version_cmd="bash --version")
case("docker-build-no-daemon", "docker", "pyproj", "docker build -t shopcart .", "build",
     "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?", [],
     "Check `docker info` before `docker build`: there is no Docker daemon on this machine, so verify the Dockerfile's steps with the local venv instead.",
     files=["Dockerfile"], version_cmd="docker --version")
