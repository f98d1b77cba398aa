# Sourced by start.sh: the test cluster's keys and certificates under
# $dir/pki, made once per start with openssl. One CA signs the API server's
# serving certificate, the clients' certificates and the webhooks' serving
# certificate; the service-account issuer has its own key pair.
pki_make() {
  local pki=$dir/pki
  mkdir -p "$pki"
  chmod 700 "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=dlp-test-cluster-ca" \
    -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl genrsa -out "$pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$pki/sa.key" -pubout -out "$pki/sa.pub" 2>/dev/null
  pki_cert apiserver "/CN=kube-apiserver" \
    "subjectAltName=IP:127.0.0.1,IP:10.96.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc" \
    serverAuth
  pki_cert webhook "/CN=dlp-test-webhooks" "subjectAltName=IP:127.0.0.1,DNS:localhost" serverAuth
  pki_cert admin "/O=system:masters/CN=dlp-test-admin" "" clientAuth
  pki_cert controller-manager "/CN=system:kube-controller-manager" "" clientAuth
  pki_cert scheduler "/CN=system:kube-scheduler" "" clientAuth
}

# pki_cert NAME SUBJECT SAN USAGE: NAME.key and NAME.crt signed by the CA.
pki_cert() {
  local pki=$dir/pki name=$1 subject=$2 san=$3 usage=$4 ext
  ext=$(mktemp)
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -z "$san" ] || echo "$san"
  } > "$ext"
  openssl req -newkey rsa:2048 -nodes -subj "$subject" -keyout "$pki/$name.key" \
    -out "$pki/$name.csr" 2>/dev/null
  openssl x509 -req -in "$pki/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
    -CAcreateserial -days 7 -extfile "$ext" -out "$pki/$name.crt" 2>/dev/null
  rm -f "$ext" "$pki/$name.csr"
}

# pki_kubeconfig NAME: $dir/NAME.kubeconfig for the client certificate NAME.
pki_kubeconfig() {
  local name=$1
  cat > "$dir/$name.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: dlp-test
  cluster:
    server: https://127.0.0.1:$apiserver_port
    certificate-authority: $dir/pki/ca.crt
users:
- name: $name
  user:
    client-certificate: $dir/pki/$name.crt
    client-key: $dir/pki/$name.key
contexts:
- name: dlp-test
  context: {cluster: dlp-test, user: $name}
current-context: dlp-test
KUBECONFIG
  chmod 600 "$dir/$name.kubeconfig"
}
