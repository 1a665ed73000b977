# fiber run --build sends the engine what docker build would: the project
# less what its .dockerignore lists, so .env and keys never reach the
# image, while the rest does. The image is checked from outside (a
# container made from it, exported) and removed after.
engine_available docker || fail "this case needs the Docker engine (/var/run/docker.sock)"
mkdir -p project/secrets project/src
cd project
printf 'FROM scratch\nCOPY . /ctx/\n' >Dockerfile
printf '# kept home\n.env\nsecrets/\n' >.dockerignore
echo 'API_TOKEN=do-not-ship' >.env
echo 'not a real key' >secrets/id_ed25519
echo 'int main() {}' >src/main.cpp
ref=$(fiber run -q --build sh -c 'echo "$FIBER_IMAGE"' 2>../run.err) ||
  fail "fiber run --build failed: $(cat ../run.err)"
[ -n "$ref" ] || fail "fiber run --build handed the program no image"
id=
cleanup() {
  [ -z "$id" ] || docker rm -f "$id" >/dev/null 2>&1 || true
  docker rmi -f "$ref" >/dev/null 2>&1 || true
}
trap cleanup EXIT
id=$(docker create "$ref" /none) || fail "docker create $ref failed"
docker export "$id" | tar -t >../files || fail "exporting the image's files failed"
grep -qx 'ctx/src/main.cpp' ../files || fail "src/main.cpp is not in the image: $(cat ../files)"
if grep -q '^ctx/\.env$\|^ctx/secrets' ../files; then
  fail "the image holds what .dockerignore lists: $(grep '^ctx/\.env$\|^ctx/secrets' ../files)"
fi
