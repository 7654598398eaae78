# The site's image: `tablezoo serve` with the web and cluster extras (no torch: the site plays
# the shipped agents with numpy). compose.yaml runs it beside PostgreSQL and Redis.
#
#   docker build -t tablezoo .
#   docker run -p 127.0.0.1:8000:8000 tablezoo          # one process on SQLite (in /data)

# The wheel, native core included, built with g++ in a stage of its own
FROM python:3.11-slim AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends g++ \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# a build error of the native core stops the build instead of falling back to the Python engine
RUN TABLEZOO_REQUIRE_NATIVE=1 pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir "$(ls /wheels/tablezoo-*.whl)[web,cluster]" \
    && rm -rf /wheels \
    && useradd --system --create-home --home-dir /data tablezoo
USER tablezoo
WORKDIR /data
EXPOSE 8000
CMD ["tablezoo", "serve", "--host", "0.0.0.0", "--port", "8000", "--db", "/data/tables.sqlite3"]
