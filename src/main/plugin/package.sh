#!/bin/sh
# The kubectl plugin's files, made by `mvn package` after the shaded jar (pom.xml, execution kubectl-plugin), run from
# the project's directory: package.sh TARGET VERSION writes TARGET/kubectl-hpa (the launcher), the release archive
# TARGET/kubectl-hpa.tar.gz (the files deploy/krew/hpa.yaml names) and TARGET/krew/hpa.yaml (that manifest with the
# version and the archive's SHA-256).
set -eu
target=$1
version=$2
cp src/main/plugin/kubectl-hpa "$target/kubectl-hpa"
chmod 755 "$target/kubectl-hpa"
tar -czf "$target/kubectl-hpa.tar.gz" -C "$target" kubectl-hpa hpa-controller.jar -C "$PWD" LICENSE
sum=$(sha256sum "$target/kubectl-hpa.tar.gz" | cut -d ' ' -f 1)
mkdir -p "$target/krew"
sed -e "s/@VERSION@/$version/g" -e "s/@SHA256@/$sum/g" deploy/krew/hpa.yaml > "$target/krew/hpa.yaml"
