"""A batch run of many documents at once: what it holds (one copy of the checks' lexicons,
however many documents' threads meet them together) and what it sends (one batch per
round and provider limit), against the loopback batch servers."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_threads_meeting_the_lexicon_together_load_it_once() -> None:
    """lemminflect loads its lexicons on first use without a lock: 32 threads stemming at
    once used to load up to 32 copies (a --batch run of 280 documents peaked at 4 GB).
    Counted in a fresh interpreter, where nothing has loaded them yet."""
    script = textwrap.dedent(
        """
        import threading
        from lemminflect.codecs.InflectionLUCodec import InflectionLUCodec
        from lemminflect.codecs.LemmaLUCodec import LemmaLUCodec
        from agentic_chunking.checks._language import all_inflections, stem

        loads = {"lemmas": 0, "inflections": 0}
        lemma_load, inflection_load = LemmaLUCodec.load, InflectionLUCodec.load

        def counted(name, load):
            def wrapper(*args, **kwargs):
                loads[name] += 1
                return load(*args, **kwargs)
            return staticmethod(wrapper)

        LemmaLUCodec.load = counted("lemmas", lemma_load)
        InflectionLUCodec.load = counted("inflections", inflection_load)
        start = threading.Barrier(32)

        def work():
            start.wait()
            stem("studies")
            all_inflections("study", upos="VERB")

        threads = [threading.Thread(target=work) for _ in range(32)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        print(loads["lemmas"], loads["inflections"])
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    )
    assert done.stdout.split() == ["1", "1"], done.stderr
