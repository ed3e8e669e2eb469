# CPU image: the dashboard on the demo warehouse. Build: docker build -t dish-atlas .
# Run:   docker run -p 127.0.0.1:8501:8501 dish-atlas             (embedded sample)
#        docker run -p 127.0.0.1:8501:8501 -v /path/to/data:/data:ro -e DATA=/data dish-atlas   (real data)
# Shared with stakeholders (docs/deployment.md): the published warehouse mounted read-only, public mode, a login:
#        docker run --read-only --tmpfs /tmp -p 127.0.0.1:8501:8501 \
#            -v /srv/dish-atlas/warehouse:/var/lib/dish-atlas:ro -e DISH_ATLAS_PUBLIC=1 dish-atlas
# Inside the container the app listens on all interfaces (so the published port reaches it); the
# `127.0.0.1:` in -p keeps that port on the host's loopback. It runs as the unprivileged user `atlas`.
# The GPU pipeline image differs: it starts from a CUDA base (e.g. vllm/vllm-openai) and adds
# requirements-gpu.txt; see docs/deployment.md, "GPU image".
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DISH_ATLAS_WAREHOUSE=/var/lib/dish-atlas/warehouse.duckdb \
    HOME=/home/atlas

WORKDIR /app
COPY requirements.txt requirements-embedded.txt ./
# torch from PyTorch's CPU index: the PyPI wheel of the same version is a multi-GB CUDA build.
RUN pip install --no-cache-dir --index-url https://download.pytorch.org/whl/cpu torch==2.13.0 \
 && pip install --no-cache-dir -r requirements.txt \
 && pip install --no-cache-dir --no-deps -r requirements-embedded.txt
# The code belongs to root and is read-only for the user that runs it.
COPY . .
RUN useradd --system --uid 10001 --create-home --home-dir /home/atlas atlas \
 && mkdir -p /var/lib/dish-atlas && chown atlas:atlas /var/lib/dish-atlas
USER atlas
# Bake the sample warehouse so the container starts instantly without data.
RUN python -m pipeline demo

EXPOSE 8501
HEALTHCHECK CMD python -c "import urllib.request; urllib.request.urlopen('http://localhost:8501/_stcore/health')"
# A writable warehouse folder: with DATA mounted, the first start builds the real-data warehouse (reruns skip
# unchanged files). A read-only one (the shared deployment): nothing is built or written, the app only reads it.
CMD ["sh", "-c", "if [ -w \"$(dirname \"$DISH_ATLAS_WAREHOUSE\")\" ]; then python -m pipeline demo; fi && exec streamlit run app/main.py --server.address=0.0.0.0 --server.port=8501"]
