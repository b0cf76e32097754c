"""Runs the DXF tests' ezdxf scripts one after another in one long-lived python3 that
has imported ezdxf, matplotlib (Agg) and numpy once (about a second of CPU each time a
new python3 does it; the tests ran about a hundred such scripts).

Each request is one line of JSON on standard input:
  {"script": PATH, "argv": [...]}  runs PATH as `python3 PATH ARGV...` would;
  {"code": TEXT, "argv": [...]}    runs TEXT as `python3 -c TEXT ARGV...` would.
Each answer is one line of JSON on standard output: {"status": N, "stdout": TEXT}, the
exit status the script would have had (0, its SystemExit code, or 1 for an exception,
whose traceback goes to standard error) and what it printed. Every figure is closed
after each request, so no script sees another's. Ends when standard input does.
"""
import contextlib
import io
import json
import runpy
import sys
import traceback

import ezdxf  # noqa: F401  (imported once for every script)
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy  # noqa: F401


def run(request):
    out = io.StringIO()
    status = 0
    saved = sys.argv
    try:
        with contextlib.redirect_stdout(out):
            if request.get("script"):
                sys.argv = [request["script"]] + request["argv"]
                runpy.run_path(request["script"], run_name="__main__")
            else:
                sys.argv = ["-c"] + request["argv"]
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc(file=sys.stderr)
        status = 1
    finally:
        sys.argv = saved
        plt.close("all")
    return {"status": status, "stdout": out.getvalue()}


def main():
    answers = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        answers.write(json.dumps(run(json.loads(line))) + "\n")
        answers.flush()


if __name__ == "__main__":
    main()
