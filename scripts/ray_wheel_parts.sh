#!/usr/bin/env bash
# Ray for the H200 in two carries: downloads the Ray wheel and the dependencies the H200's image lacks
# (Python 3.12, manylinux x86_64), and splits them into two folders, each small enough for one call of
# the device tool (its carry limit is 64 MiB per call with the working tree; the Ray wheel alone is about
# 79 MB). Run here, from the repository root, where pip can reach the package index:
#
#   bash scripts/ray_wheel_parts.sh            # -> .whl/ray_part1/ and .whl/ray_part2/ (ignored by git)
#
# Then, back to back (the machine keeps a carried folder while it is warm, about 30 s after a call):
#   call 1: carry [".whl/ray_part1"], command "ls -la .whl/ray_part1"
#   call 2: carry [".whl/ray_part2"], command "OUT=$OUT bash scripts/gpu_ray_batch.sh"
# gpu_ray_batch.sh joins the parts, checks the wheel's sha256 and installs it to /tmp/site.
#
# Ray's own requirements (ray-<v>.dist-info/METADATA, non-extra): click, filelock, jsonschema, msgpack,
# packaging>=24.2, protobuf, pyyaml, requests. All but jsonschema are in the H200 image (KINDS.md, "Python
# packages already there"); jsonschema needs jsonschema-specifications, referencing and rpds-py (attrs and
# typing-extensions are there). The pip options are those of /work/.library/device/README.md, "Notes".
#
# Environment: RAY_VERSION (default 2.60.0), DEST (default .whl). A wheel already in DEST/download is not
# fetched again.
set -euo pipefail
RAY_VERSION="${RAY_VERSION:-2.60.0}"
DEST="${DEST:-.whl}"
DEPS=(jsonschema jsonschema-specifications referencing rpds-py)
PY="${PYTHON:-python3}"

download="$DEST/download"
mkdir -p "$download"
"$PY" -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 --platform manylinux1_x86_64 \
  -d "$download" "ray==$RAY_VERSION" "${DEPS[@]}"

wheel=$(ls "$download"/ray-"$RAY_VERSION"-cp312-*.whl | head -n 1)
name=$(basename "$wheel")
part1="$DEST/ray_part1"
part2="$DEST/ray_part2"
rm -rf "$part1" "$part2"
mkdir -p "$part1" "$part2"
for dep in "${DEPS[@]}"; do
  cp "$download"/"${dep//-/_}"-*.whl "$part1"/
done
split -n 2 -d -a 1 "$wheel" "$part1/$name.part"
mv "$part1/$name.part1" "$part2/"
echo "$name" > "$part1/WHEEL_NAME"
(cd "$download" && sha256sum "$name") > "$part1/SHA256SUMS"

# the parts join back into the same wheel (checked here, before anything is carried)
sums=$(realpath "$part1/SHA256SUMS")
check=$(mktemp -d)
cat "$part1/$name.part0" "$part2/$name.part1" > "$check/$name"
(cd "$check" && sha256sum -c "$sums")
rm -rf "$check"
du -sh "$part1" "$part2"
