# Certificates, keys and kubeconfigs for the test cluster (sourced by up).
# Everything is generated with openssl into $DIR/pki, once per cluster.

# cert NAME SUBJECT [SANS]: key + certificate signed by the cluster CA.
cert() {
  local name=$1 subj=$2 sans=${3:-} ext
  [[ -f $DIR/pki/$name.crt ]] && return
  ext="basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth,serverAuth"
  [[ -n $sans ]] && ext+=$'\n'"subjectAltName=$sans"
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$DIR/pki/$name.key" -subj "$subj" -out "$DIR/pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$DIR/pki/$name.csr" -CA "$DIR/pki/ca.crt" -CAkey "$DIR/pki/ca.key" \
    -CAcreateserial -days 3650 -extfile <(echo "$ext") -out "$DIR/pki/$name.crt" 2>/dev/null
  rm -f "$DIR/pki/$name.csr"
}

make_pki() {
  mkdir -p "$DIR/pki"
  chmod 700 "$DIR/pki"
  if [[ ! -f $DIR/pki/ca.crt ]]; then
    log "pki: generating cluster CA and certificates"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
      -keyout "$DIR/pki/ca.key" -out "$DIR/pki/ca.crt" -subj "/CN=fiber-test-cluster-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  fi
  cert apiserver "/CN=kube-apiserver" \
    "IP:127.0.0.1,IP:$API_HOST,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client"
  cert front-proxy-client "/CN=front-proxy-client"
  cert admin "/O=system:masters/CN=fiber-admin"
  cert controller-manager "/CN=system:kube-controller-manager"
  cert scheduler "/CN=system:kube-scheduler"
  local name
  for name in $NODE_NAMES; do
    cert "kubelet-$name" "/O=system:nodes/CN=system:node:$name"
    cert "kubelet-serving-$name" "/CN=$name" "IP:$(node_listen_address "$name"),DNS:$name"
  done
  # Service account tokens are signed with this key pair.
  if [[ ! -f $DIR/pki/sa.key ]]; then
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$DIR/pki/sa.key" 2>/dev/null
    openssl pkey -in "$DIR/pki/sa.key" -pubout -out "$DIR/pki/sa.pub"
  fi
}

# kubeconfig FILE USER CERT-NAME|token:TOKEN [NAMESPACE]: a self-contained
# kubeconfig (certificates embedded) for the API server at $API_HOST.
kubeconfig() {
  local file=$1 user=$2 cred=$3 ns=${4:-default} creds
  if [[ $cred == token:* ]]; then
    creds="    token: ${cred#token:}"
  else
    creds="    client-certificate-data: $(base64 -w0 "$DIR/pki/$cred.crt")
    client-key-data: $(base64 -w0 "$DIR/pki/$cred.key")"
  fi
  (umask 077 && cat >"$file.tmp") <<KC
apiVersion: v1
kind: Config
clusters:
- name: fiber-test
  cluster:
    server: https://$API_HOST:$API_PORT
    certificate-authority-data: $(base64 -w0 "$DIR/pki/ca.crt")
users:
- name: $user
  user:
$creds
contexts:
- name: $user@fiber-test
  context: {cluster: fiber-test, user: $user, namespace: $ns}
current-context: $user@fiber-test
KC
  mv "$file.tmp" "$file"
}
