#!/usr/bin/env bash
# How the git lab (gitproj, its bare remote and a second clone) was laid out before spec_git_sh.py ran.
set -e
G=/work/corpus_lab/gitproj; rm -rf $G /work/corpus_lab/gitremote.git /work/corpus_lab/gitother
git init -q --bare -b main /work/corpus_lab/gitremote.git
git clone -q /work/corpus_lab/gitremote.git $G 2>/dev/null; cd $G
git config user.name dev; git config user.email dev@example.invalid
mkdir -p src docs; printf 'def greet(name):\n    return "Hello, " + name\n' > src/greet.py; printf '# Greeter\n\nSays hello.\n' > README.md
printf 'PORT = 8000\nDEBUG = False\n' > src/settings.py
git add -A; git commit -qm "initial"; git push -q origin main
git clone -q /work/corpus_lab/gitremote.git /work/corpus_lab/gitother; cd /work/corpus_lab/gitother; git config user.name other; git config user.email other@example.invalid
printf '# Greeter\n\nSays hello politely.\n' > README.md; git commit -qam "docs: polite"; git push -q origin main
cd $G
# local diverging commit on main
printf '# Greeter\n\nSays hello to anyone.\n' > README.md; git commit -qam "docs: anyone"
# feature branch conflicting on greet.py
git checkout -q -b feature/shout; printf 'def greet(name):\n    return "HELLO, " + name.upper()\n' > src/greet.py; git commit -qam "shout"
git checkout -q main; printf 'def greet(name: str) -> str:\n    return f"Hello, {name}"\n' > src/greet.py; git commit -qam "fstring"
# branch for rebase
git checkout -q -b feature/port main~1; printf 'PORT = 9000\nDEBUG = False\n' > src/settings.py; git commit -qam "port 9000"
git checkout -q main; printf 'PORT = 8080\nDEBUG = False\n' > src/settings.py; git commit -qam "port 8080"
cat > fix.patch <<'PATCH'
--- a/src/greet.py
+++ b/src/greet.py
@@ -1,2 +1,2 @@
 def greet(name):
-    return "Hello, " + name
+    return "Hello, " + name + "!"
PATCH
echo notes > notes.txt
# The push case: the remote was then addressed relatively, so outputs carry no absolute path.
git remote set-url origin ../gitremote.git
