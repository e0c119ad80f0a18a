#!/usr/bin/env bash
# Fetch the Go oracle: gopls 0.16.1 and Go 1.24 from Debian trixie's packages, unpacked
# (not installed) under ~/.cache/spyglass/tools/gopls. bookworm's gopls 0.5 does not search
# test packages for calls through interfaces; bench/accuracy/oracle.py uses this copy when
# it exists. Nothing here is needed by the test suite (it reads the stored answers).
set -euo pipefail
DEST="${HOME}/.cache/spyglass/tools/gopls"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
DEBS=(
  pool/main/g/gopls/gopls_0.16.1+ds-1_amd64.deb
  pool/main/g/golang-1.24/golang-1.24-go_1.24.4-1_amd64.deb
  pool/main/g/golang-1.24/golang-1.24-src_1.24.4-1_all.deb
)
if [ -x "${DEST}/usr/bin/gopls" ] && [ -x "${DEST}/usr/lib/go-1.24/bin/go" ]; then
  echo "${DEST} is ready"; exit 0
fi
tmp="$(mktemp -d)"; trap 'rm -rf "${tmp}"' EXIT
mkdir -p "${DEST}"
for deb in "${DEBS[@]}"; do
  curl -fsSL --retry 3 -o "${tmp}/$(basename "${deb}")" "${MIRROR}/${deb}"
  dpkg-deb -x "${tmp}/$(basename "${deb}")" "${DEST}"
done
"${DEST}/usr/bin/gopls" version
