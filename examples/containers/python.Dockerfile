# A Python service reading its secrets with cplane_reader (docs/sdk.md, "In a container").
# Build context: app.py, the reader manifest (public) and the wheel
# (`pip wheel --no-deps packages/python` in the cplane repository).
FROM python:3.12-slim
WORKDIR /app
COPY cplane_reader-0.1.0-py3-none-any.whl app.py cplane-reader.json ./
RUN python3 -m venv --system-site-packages /app/venv && /app/venv/bin/pip install --no-cache-dir /app/cplane_reader-0.1.0-py3-none-any.whl && rm /app/cplane_reader-0.1.0-py3-none-any.whl
# The manifest is public and ships with the image; CPLANE_READER (the one secret) is given at run time only.
ENV CPLANE_MANIFEST=/app/cplane-reader.json
USER 10001
CMD ["/app/venv/bin/python", "/app/app.py"]
