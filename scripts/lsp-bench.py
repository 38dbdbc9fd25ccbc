#!/usr/bin/env python3
"""How fast `promptc lsp` answers on a large project (stdlib only; a benchmark, never a test).

usage, from the repository root:
    cargo build --release
    python3 scripts/lsp-bench.py target/release/promptc [MKBIG] [ROUNDS]

Builds the 1,008-tool copy of the example (MKBIG: ../shared/bench/mkbig.py by default), starts
`promptc lsp` in it as an editor would, and prints medians of: the first diagnostics after
`initialized`; new diagnostics after a `didChange` of a section (the time from sending the change
to the section's `publishDiagnostics`); hover on a tool name; completion in a template string.
For reference it also times the CLI's `check` and warm `report --matrix` on the same copy:
the server runs both after each change.
"""
import json, os, shutil, statistics, subprocess, sys, tempfile, time

BIN = os.path.abspath(sys.argv[1])
MKBIG = sys.argv[2] if len(sys.argv) > 2 else os.path.join("..", "shared", "bench", "mkbig.py")
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 10


class Server:
    def __init__(self, root):
        self.p = subprocess.Popen([BIN, "lsp"], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.root, self.next_id = root, 0

    def send(self, message):
        body = json.dumps(dict(message, jsonrpc="2.0")).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def recv(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("the server ended")
            if line == b"\r\n":
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        while True:
            m = self.recv()
            if m.get("id") == self.next_id and "method" not in m:
                return m

    def diagnostics_of(self, uri):
        while True:
            m = self.recv()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def uri(self, rel):
        return "file://" + os.path.join(self.root, rel)


def ms(seconds):
    return f"{seconds * 1000:.0f} ms"


def main():
    work = tempfile.mkdtemp(prefix="promptc-lsp-bench.")
    try:
        ex, big, other = (os.path.join(work, n) for n in ("ex", "A", "B"))
        shutil.copytree("profiles", ex, ignore=shutil.ignore_patterns(".promptc-cache"))
        subprocess.run([sys.executable, MKBIG, ex, big, other], check=True, capture_output=True)
        big = os.path.realpath(big)
        env = dict(os.environ, HOME=work, XDG_CACHE_HOME=os.path.join(work, ".cache"))
        os.environ.update(env)
        tools = sum(open(os.path.join(big, "tools", f)).read().count("\n- name: ") for f in os.listdir(os.path.join(big, "tools")))
        print(f"project: {big} ({tools} tools)")
        for args in (["check"], ["report", "--matrix"], ["report", "--matrix"]):
            t = time.perf_counter()
            subprocess.run([BIN, *args], cwd=big, capture_output=True)
            print(f"  CLI {' '.join(args)}: {ms(time.perf_counter() - t)}")

        s = Server(big)
        t = time.perf_counter()
        s.request("initialize", {"processId": None, "rootUri": "file://" + big,
                                 "capabilities": {"general": {"positionEncodings": ["utf-16"]}}})
        s.send({"method": "initialized", "params": {}})
        section = "sections/rules.md.j2"
        text = open(os.path.join(big, section)).read()
        s.send({"method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": s.uri(section), "languageId": "jinja", "version": 1, "text": text}}})
        s.diagnostics_of(s.uri(section))
        print(f"first diagnostics after initialize: {ms(time.perf_counter() - t)}")

        changes = []
        for i in range(ROUNDS):
            text += f"\nEdited line {i}.\n"
            t = time.perf_counter()
            s.send({"method": "textDocument/didChange", "params": {
                "textDocument": {"uri": s.uri(section), "version": i + 2}, "contentChanges": [{"text": text}]}})
            s.diagnostics_of(s.uri(section))
            changes.append(time.perf_counter() - t)
        print(f"diagnostics after a didChange of a section: median {ms(statistics.median(changes))} "
              f"(min {ms(min(changes))}, max {ms(max(changes))}, {ROUNDS} changes)")

        tool_file = "tools/files.yaml"
        line = open(os.path.join(big, tool_file)).read().split("\n").index("- name: read_file")
        hovers, completions = [], []
        cap = "sections/capabilities.md.j2"
        cap_line = open(os.path.join(big, cap)).read().split("\n")[1]
        col = cap_line.index('"list_files"') + 3
        for _ in range(ROUNDS * 2):
            t = time.perf_counter()
            h = s.request("textDocument/hover", {"textDocument": {"uri": s.uri(tool_file)},
                                                 "position": {"line": line, "character": 10}})
            hovers.append(time.perf_counter() - t)
            t = time.perf_counter()
            c = s.request("textDocument/completion", {"textDocument": {"uri": s.uri(cap)},
                                                      "position": {"line": 1, "character": col}})
            completions.append(time.perf_counter() - t)
        assert "read_file" in h["result"]["contents"]["value"], h
        print(f"hover on a tool name: median {ms(statistics.median(hovers))} (max {ms(max(hovers))})")
        print(f"completion in a template string: median {ms(statistics.median(completions))} "
              f"({len(c['result'])} items, max {ms(max(completions))})")
        s.request("shutdown", None)
        s.send({"method": "exit"})
        s.p.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
