# CPU image: the dashboard on the demo warehouse. Build: docker build -t dish-atlas .
# Run:   docker run -p 127.0.0.1:8501:8501 dish-atlas             (embedded sample)
#        docker run -p 127.0.0.1:8501:8501 -v /path/to/data:/data:ro -e DATA=/data dish-atlas   (real data)
# Inside the container the app listens on all interfaces (so the published port reaches it); the
# `127.0.0.1:` in -p keeps that port on the host's loopback. The dashboard has no login: see SECURITY.md.
# The GPU pipeline image differs: it starts from a CUDA base (e.g. vllm/vllm-openai) and adds
# requirements-gpu.txt; see docs/deployment.md, "GPU image".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DISH_ATLAS_WAREHOUSE=/var/lib/dish-atlas/warehouse.duckdb

WORKDIR /app
COPY requirements.txt requirements-embedded.txt ./
# torch from PyTorch's CPU index: the PyPI wheel of the same version is a multi-GB CUDA build.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir --no-deps -r requirements-embedded.txt
COPY . .
# Bake the sample warehouse so the container starts instantly without data.
RUN python -m pipeline demo

EXPOSE 8501
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://localhost:8501/_stcore/health')"
# With DATA mounted, the first start builds the real-data warehouse (reruns skip unchanged files).
CMD ["sh", "-c", "python -m pipeline demo && exec streamlit run app/main.py --server.address=0.0.0.0 --server.port=8501"]
