"""The demo server's two skills (SEP-2640): one with supporting files in subdirectories, one nested alone.

`mrtr-debugging` has references and a script under `references/` and `scripts/`, so a host can be
seen reading SKILL.md alone at load and a supporting file only when asked, and the conformance suite's
directory scenario has a subdirectory to descend into. `lesson-guide` sits under an organisational
prefix (`studio/lessons/`), the SEP's nested skill path, and is a single SKILL.md.
"""

from ..engine import McpServer

DEBUGGING_SKILL = """---
name: mrtr-debugging
description: Debug a Multi Round-Trip Request exchange step by step with MRTR Studio
license: MIT
metadata:
  version: "1.0.0"
---

# Debugging an MRTR exchange

1. Call the tool and look at the first response: `resultType` is `input_required` when the server asks.
2. Answer every key of `inputRequests`; echo `requestState` unchanged; send the retry with a new id.
3. When a retry is refused, read `references/ROUNDS.md` for the usual causes.
4. `scripts/check_state.py` decodes a studio requestState without verifying it.
"""

ROUNDS = """# Why a retry is refused

- The requestState was altered, expired, or minted for another principal or audience.
- An inputResponse answers a key the state never asked for (it is ignored; the server asks again).
- A single-use state was replayed after it completed the operation.
"""

CHECK_STATE = '''"""Print the payload of a studio requestState (no signature check: for reading only)."""
import base64
import json
import sys

token = sys.argv[1]
payload = token.split(".")[1]
print(json.dumps(json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))), indent=2))
'''

LESSON_GUIDE = """---
name: lesson-guide
description: Walk a learner through the studio's MRTR lessons in order
---

Start with the elicitation lesson, then the multi-round wizard, then the tampering lab.
Explain each round before sending it.
"""


def register_demo_skills(server: McpServer) -> None:
    server.skill("mrtr-debugging", DEBUGGING_SKILL,
                 {"references/ROUNDS.md": ROUNDS, "scripts/check_state.py": CHECK_STATE})
    server.skill("studio/lessons/lesson-guide", LESSON_GUIDE)
