"""A model that keeps calling tools: Claude Code's stream-json of one ``ls`` tool call after another, until it is
stopped at its time limit, or, with BUSY_MAX_TURNS=N, until Claude Code's turn limit ends it after N turns. With
BUSY_STALL=N, after N turns the API refuses it as overloaded, and Claude Code says so and retries until it is stopped
(review23 r31). With BUSY_SILENT=N, after N turns it stalls with no output at all, as a model whose API went silent
(newuser21 n155)."""

import json
import os
import sys
import time


def say(event: dict) -> None:
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


say({"type": "system", "subtype": "init", "model": "scripted", "tools": ["Bash"]})
limit = int(os.environ.get("BUSY_MAX_TURNS", "0"))
stall = int(os.environ.get("BUSY_STALL", "0"))
silent = int(os.environ.get("BUSY_SILENT", "0"))
turn = 0
while not limit or turn < limit:
    turn += 1
    if turn > silent > 0:
        time.sleep(60)
    if turn > stall > 0:
        sys.stderr.write('API Error: 529 {"type":"error","error":{"type":"overloaded_error"}} · Retrying in 30 s\n')
        sys.stderr.flush()
        time.sleep(60)
    use = {"type": "tool_use", "id": f"t{turn}", "name": "Bash", "input": {"command": "ls"}}
    say({"type": "assistant", "message": {"content": [use]}})
    result = {"type": "tool_result", "tool_use_id": f"t{turn}", "content": "kernel.py\nreference.py"}
    say({"type": "user", "message": {"content": [result]}})
    time.sleep(0.02)
say({"type": "result", "subtype": "error_max_turns", "is_error": True, "num_turns": turn, "result": ""})
sys.exit(1)
