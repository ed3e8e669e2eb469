"""The dashboard's entry point, `streamlit run app/main.py`: the script Streamlit reruns on every page view.

Reads only the `marts.*` tables of the published warehouse snapshot (see app/data.py). This file
is two things to Streamlit:

- the script of every page view (`__main__`): it runs the dashboard's frame, app/dashboard.py,
  which declares the pages and draws the sidebar around the chosen one;
- the app to serve: `streamlit run` finds the `st.App` below (by reading this file), imports it
  and serves it, first running its lifespan, app/startup.py, which imports what the pages need
  and opens the snapshot before the server answers, so that a fresh server's first page does not
  wait for them.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run` puts only app/ on the path
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

if __name__ == "__main__":  # a page view (`streamlit run`, AppTest)
    from app.dashboard import main

    main()
else:  # imported by `streamlit run app/main.py` to serve it
    from app import startup

    server = st.App(__file__, lifespan=startup.lifespan)
