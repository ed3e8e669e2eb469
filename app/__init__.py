"""The Streamlit dashboard, which reads only the published marts (app/main.py runs it, app/dashboard.py frames it)."""
