#!/usr/bin/env bash
# Cross-builds for the six release platforms: go vet type-checks every package and every test
# file for the platform (with its build tags), and the binary is compiled and linked as the
# release builds it (static, -trimpath). vet takes the same flags as the build, so the packages
# it compiles for their export data are the ones the build links: each target compiles once
# (and linux/amd64's is the one the release test builds). Test binaries are not linked: vet's
# type check is what differs between platforms, and linking six sets of ~60 test binaries
# would cost minutes for nothing more.
set -euo pipefail
cd "$(dirname "$0")/.."
targets=(linux/amd64 linux/arm64 darwin/arm64 darwin/amd64 windows/amd64 windows/arm64)
for t in "${targets[@]}"; do
  os=${t%/*} arch=${t#*/}
  start=$SECONDS
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 go vet -trimpath ./...
  GOOS=$os GOARCH=$arch CGO_ENABLED=0 go build -trimpath -o /dev/null ./cmd/toolhost
  echo "cross-build $t: vet and link in $((SECONDS - start))s"
done
