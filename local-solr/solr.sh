#!/usr/bin/env bash
# Starts real Apache Solr nodes (from Maven Central artifacts) on 127.0.0.1: release 9.10.1
# (launcher/pom.xml), or the one SOLR_VERSION / --solr-version names (9.4.0 and later, and
# 10.0.0: Java 21+, found by itself when the default Java is older; its launcher is built from a
# leniently read solr-core POM, see lenient-pom.py and build_streaming).
#
#   solr.sh setup [--solr-version V]
#   solr.sh start standalone|pair|cloud [--name NAME] [--solr-version V] [--tls [--client-auth]]
#           [--basic-auth]
#           [--heap 512m] [--jvm-opts "..."]
#           [--java-home DIR] [--poll-interval SECS] [--idle-timeout-ms MS]
#           [--auto-commit-ms MS] [--auto-soft-commit-ms MS] [--vector-dim N]
#           [--gzip-inflate] [--timeout SECS] [--port BASE] [--shards N] [--replicas N]
#           [--replica-types nrt,tlog,pull] [--configset NAME]
#   solr.sh stop [NAME | --all]
#   solr.sh kill-node NAME NODE | stop-node NAME NODE | start-node NAME NODE
#   solr.sh status [NAME]
#   solr.sh urls NAME
#
# stdout (start, start-node, urls) is machine-readable:
#   node <NODE> <BASE_URL>        one line per Solr node, e.g. node leader http://127.0.0.1:41234/solr
#   ca <ABS PATH OF ca.pem>       only with --tls
# --client-auth (standalone or cloud, with --tls): Jetty requires a client certificate signed
# by the local CA (the launcher's equivalent of the distribution's SOLR_SSL_NEED_CLIENT_AUTH=true),
# and security.json turns on Solr's CertAuthPlugin (cloud: in ZooKeeper). Client certificates
# made at set-up, in run/tls/: client-{rsa,ec,pkcs8}.{pem,key} (keys PKCS#1 RSA, SEC1 EC,
# PKCS#8), and wrong-ca-client.{pem,key} from a second CA the node does not trust. A cloud's
# nodes present their own certificate to each other as clients (the distribution's
# SOLR_SSL_KEY_STORE, given as javax.net.ssl.keyStore): node.p12, the server's key with a
# certificate of the local CA fit for both ends (extendedKeyUsage serverAuth, clientAuth).
# --basic-auth (standalone or cloud): Solr's BasicAuthPlugin with blockUnknown=true, so every
# request needs HTTP Basic credentials: user `solr`, password `SolrRocks` (Solr's documented
# example; a test fixture, never a real secret). security.json goes to the node's home
# (standalone) or to ZooKeeper's /security.json (cloud, uploaded when ZooKeeper starts).
# Everything else goes to stderr. State, data and logs: local-solr/run/NAME/
#   nodes.tsv  tab-separated, no header: node port pid base_url
#   zk.port    (cloud) ZooKeeper port; ZK itself is the pseudo node "zk" for stop/kill/start-node.
# Modes: standalone = node1 (core bench); pair = leader + follower (core bench, follower polls
# the leader); cloud = zk + node1 + node2, collection bench (router compositeId) --shards x
# --replicas (default 1 x 2), replicas spread over both nodes.
# --configset NAME (standalone or cloud): the core or collection is NAME, made from
# configsets/NAME/conf instead of configsets/bench/conf (`default`: a stand-in for Solr's
# `_default`, managed schema and schemaless; a standalone core gets its own copy of the conf,
# so Schema API changes stay in run/NAME/).
# Launchers: the pom's version in launcher/target/, any other in launcher/target-V/ (built on
# first use), so releases coexist; an instance keeps the version it was started with.
# A `start` of an instance that is not fully alive wipes run/NAME and starts fresh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN="$ROOT/run"
LAUNCHER="$ROOT/launcher"
# The Solr release of the launcher's pom (launcher/target/); SOLR_VERSION picks another.
DEFAULT_SOLR_VERSION="$(sed -n 's:.*<solr.version>\(.*\)</solr.version>.*:\1:p' "$LAUNCHER/pom.xml")"
SOLR_VERSION="${SOLR_VERSION:-$DEFAULT_SOLR_VERSION}"
TLS_DIR="$RUN/tls"
STOP_TIMEOUT="${SOLR_SH_STOP_TIMEOUT:-30}"
PROG="solr.sh"

log() { echo "$PROG: $*" >&2; }
die() { echo "$PROG: error: $*" >&2; exit 1; }

# ---------------------------------------------------------------- processes

# pid_alive PID ID: the pid is alive AND is the JVM we started for instance/node ID.
pid_alive() {
  local pid="$1" id="$2" cmd
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  cmd="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  [[ "$cmd" == *"-Dsolrbench.id=$id "* ]]
}

node_dir() { echo "$RUN/$1/$2"; }
node_pid() { local f; f="$(node_dir "$1" "$2")/pid"; [[ -f "$f" ]] && cat "$f" || true; }
node_port() { local f; f="$(node_dir "$1" "$2")/port"; [[ -f "$f" ]] && cat "$f" || true; }
node_is_running() { pid_alive "$(node_pid "$1" "$2")" "$1/$2"; }

# signal_and_wait NAME NODE...: SIGTERM the nodes, wait STOP_TIMEOUT, then SIGKILL.
stop_nodes() {
  local name="$1"; shift
  local node pid pids=() ids=()
  for node in "$@"; do
    pid="$(node_pid "$name" "$node")"
    if pid_alive "$pid" "$name/$node"; then
      kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid"); ids+=("$name/$node")
    fi
  done
  local deadline=$((SECONDS + STOP_TIMEOUT)) i alive
  while :; do
    alive=0
    for i in "${!pids[@]}"; do pid_alive "${pids[$i]}" "${ids[$i]}" && alive=1; done
    [[ $alive == 0 ]] && break
    if ((SECONDS >= deadline)); then
      for i in "${!pids[@]}"; do
        if pid_alive "${pids[$i]}" "${ids[$i]}"; then
          log "${ids[$i]} (pid ${pids[$i]}) did not stop in ${STOP_TIMEOUT}s: SIGKILL"
          kill -KILL "${pids[$i]}" 2>/dev/null || true
        fi
      done
      deadline=$((SECONDS + 10))
      while :; do
        alive=0
        for i in "${!pids[@]}"; do pid_alive "${pids[$i]}" "${ids[$i]}" && alive=1; done
        [[ $alive == 0 ]] && break
        ((SECONDS >= deadline)) && die "could not kill ${ids[*]}"
        sleep 0.2
      done
      break
    fi
    sleep 0.2
  done
  for node in "$@"; do rm -f "$(node_dir "$name" "$node")/pid"; done
}

kill_node_hard() {
  local name="$1" node="$2" pid
  pid="$(node_pid "$name" "$node")"
  if pid_alive "$pid" "$name/$node"; then
    kill -KILL "$pid" 2>/dev/null || true
    local deadline=$((SECONDS + 10))
    while pid_alive "$pid" "$name/$node"; do
      ((SECONDS >= deadline)) && die "pid $pid of $name/$node survived SIGKILL"
      sleep 0.1
    done
  fi
  rm -f "$(node_dir "$name" "$node")/pid"
}

# ---------------------------------------------------------------- setup

# solr_major: the major release of SOLR_VERSION (9, 10, ...).
solr_major() { echo "${SOLR_VERSION%%.*}"; }
# min_java: the Java release SOLR_VERSION needs (Solr 10 needs 21, Solr 9 17).
min_java() { if (($(solr_major) >= 10)); then echo 21; else echo 17; fi; }
java_spec() { "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' || true; }

java_bin() {
  if [[ -n "${JAVA_HOME_OPT:-}" ]]; then
    [[ -x "$JAVA_HOME_OPT/bin/java" ]] || die "no java at $JAVA_HOME_OPT/bin/java (--java-home)"
    echo "$JAVA_HOME_OPT/bin/java"
    return 0
  fi
  local java v home
  java="$(command -v java)" || die "java not found on PATH (run: $0 setup)"
  v="$(java_spec "$java")"
  [[ "${v%%.*}" -ge "$(min_java)" ]] 2>/dev/null && { echo "$java"; return 0; }
  # Solr 10 on a machine whose default Java is 17: the first JDK recent enough among
  # SOLR_JAVA_HOME, JAVA_HOME and /usr/lib/jvm/* (javac beside it too, for the launcher).
  for home in "${SOLR_JAVA_HOME:-}" "${JAVA_HOME:-}" /usr/lib/jvm/*; do
    [[ -n "$home" && -x "$home/bin/java" && -x "$home/bin/javac" ]] || continue
    v="$(java_spec "$home/bin/java")"
    [[ "${v%%.*}" -ge "$(min_java)" ]] 2>/dev/null && { echo "$home/bin/java"; return 0; }
  done
  die "Solr $SOLR_VERSION needs Java $(min_java)+; $java is Java $v and no JDK $(min_java)+ was found (--java-home DIR or SOLR_JAVA_HOME)"
}

check_java_version() {
  local java="$1" v
  v="$(java_spec "$java")"
  [[ -n "$v" ]] || die "cannot run $java"
  [[ "${v%%.*}" -ge "$(min_java)" ]] 2>/dev/null || die "$java is Java $v; Solr $SOLR_VERSION needs Java $(min_java)+"
}

install_prereqs() {
  local missing=()
  command -v java >/dev/null || missing+=(java)
  command -v javac >/dev/null || missing+=(javac)
  command -v mvn >/dev/null || missing+=(mvn)
  command -v curl >/dev/null || missing+=(curl)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v keytool >/dev/null || missing+=(keytool)
  command -v flock >/dev/null || missing+=(flock)
  ((${#missing[@]} == 0)) && return 0
  if [[ "$(id -u)" != 0 ]]; then
    die "missing ${missing[*]}; as root run: apt-get install -y openjdk-17-jdk-headless maven curl openssl util-linux"
  fi
  command -v apt-get >/dev/null || die "missing ${missing[*]} and no apt-get to install them"
  log "installing ${missing[*]} with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2 || die "apt-get update failed"
  local jdk=openjdk-17-jdk-headless
  # Debian 13+ has no 17; Solr 9 runs on 21 as well.
  apt-cache show "$jdk" >/dev/null 2>&1 || jdk=openjdk-21-jdk-headless
  apt-get install -y -q --no-install-recommends "$jdk" maven curl openssl ca-certificates util-linux >&2 \
    || die "apt-get install failed"
}

# launcher_dir: the build folder of SOLR_VERSION's launcher.
launcher_dir() {
  [[ "$SOLR_VERSION" =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "bad Solr version '$SOLR_VERSION' (e.g. 9.4.1)"
  if [[ "$SOLR_VERSION" == "$DEFAULT_SOLR_VERSION" ]]; then echo "$LAUNCHER/target"; else echo "$LAUNCHER/target-$SOLR_VERSION"; fi
}

# lenient_pom_fallbacks: lenient-pom.py's --fallback options. This registry lacks three jars
# solr-core 10.0.0 names: Lucene's classification (10.3.2; 10.3.1 is served) and Korean
# analysis (10.3.2; 10.3.0 is served) modules, same Lucene 10.3 line, and solr-solrj-streaming
# 10.0.0 (no 10.x at all; solr-core needs it to start): left out, build_streaming makes it.
lenient_pom_fallbacks() {
  echo --fallback org.apache.lucene:lucene-classification:10.3.1 \
    --fallback org.apache.lucene:lucene-analysis-nori:10.3.0 \
    --fallback org.apache.solr:solr-solrj-streaming:-
}

# build_streaming DIR: solr-solrj-streaming for a Solr 10 whose own jar is not served, compiled
# into DIR/streaming-classes (added to DIR/classpath.txt) from the sources of the newest served
# release, 9.10.1 (Maven Central's sources jar), ported to SolrJ 10: SolrJ 10 moved
# InputStreamResponseParser and SolrQuery, renamed Http2SolrClient to HttpJettySolrClient and
# dropped DocCollection.getActiveSlicesArr; SolrClientCache is the launcher's own
# (src/solr10/streaming), with the constructor solr-core 10 calls. Streaming expressions are
# therefore 9.10.1's, not 10.0.0's; the nodes need the module to start at all.
STREAMING_SOURCES=org.apache.solr:solr-solrj-streaming:9.10.1
build_streaming() {
  local t="$1" javac="$2" src="$1/streaming-src" jar
  local g a v; IFS=: read -r g a v <<<"$STREAMING_SOURCES"
  jar="$HOME/.m2/repository/${g//.//}/$a/$v/$a-$v-sources.jar"
  if [[ ! -f "$jar" ]]; then
    mvn -q -B -Dstyle.color=never dependency:get -Dtransitive=false -Dartifact="$g:$a:$v:jar:sources" >&2 \
      || die "Maven could not fetch $STREAMING_SOURCES (sources), needed to build solr-solrj-streaming for Solr $SOLR_VERSION"
  fi
  rm -rf "$src" "$t/streaming-classes"; mkdir -p "$src" "$t/streaming-classes"
  (cd "$src" && unzip -q "$jar") || die "cannot unpack $jar"
  cp -r "$LAUNCHER/src/solr10/streaming/." "$src/"
  local files; mapfile -t files < <(find "$src" -name '*.java')
  sed -i -e 's/org\.apache\.solr\.client\.solrj\.impl\.InputStreamResponseParser/org.apache.solr.client.solrj.response.InputStreamResponseParser/' \
    -e 's/import org\.apache\.solr\.client\.solrj\.SolrQuery;/import org.apache.solr.client.solrj.request.SolrQuery;/' \
    -e 's/import org\.apache\.solr\.client\.solrj\.impl\.Http2SolrClient;/import org.apache.solr.client.solrj.jetty.HttpJettySolrClient;/' \
    -e 's/new Http2SolrClient\.Builder/new HttpJettySolrClient.Builder/' \
    -e 's/Arrays\.stream(docCol\.getActiveSlicesArr())/docCol.getActiveSlices().stream()/' "${files[@]}"
  "$javac" --release 21 -nowarn -encoding UTF-8 -d "$t/streaming-classes" -cp "$(cat "$t/classpath.txt")" "${files[@]}" \
    >"$t/streaming.javac.txt" 2>&1 \
    || { tail -20 "$t/streaming.javac.txt" >&2; die "solr-solrj-streaming ($STREAMING_SOURCES sources) does not compile against Solr $SOLR_VERSION"; }
  rm -rf "$src"
  printf '%s:%s' "$(cat "$t/classpath.txt")" "$t/streaming-classes" >"$t/classpath.txt.new"
  mv "$t/classpath.txt.new" "$t/classpath.txt"
  log "note: solr-solrj-streaming $SOLR_VERSION is not served here: built from the $v sources, ported to SolrJ $SOLR_VERSION"
}

build_needed() {
  local t; t="$(launcher_dir)"
  local cp="$t/classpath.txt" stamp="$t/.solrbench-build-stamp"
  [[ -s "$cp" && -f "$stamp" && -f "$t/classes/dev/solrbench/Node.class" ]] || return 0
  [[ -n "$(find "$LAUNCHER/pom.xml" "$LAUNCHER/lenient-pom.py" "$LAUNCHER/src" -newer "$stamp" -print -quit)" ]] && return 0
  (($(solr_major) < 10)) || [[ "$(lenient_pom_fallbacks)" == "$(cat "$t/fallbacks.txt" 2>/dev/null)" ]] || return 0
  local jar
  IFS=: read -r -a jars <"$cp"
  for jar in "${jars[@]}"; do [[ -e "$jar" ]] || return 0; done
  return 1
}

build_launcher() {
  local t; t="$(launcher_dir)"
  if build_needed; then
    log "building the launcher for Solr $SOLR_VERSION in $t"
    rm -rf "$t/classes"; mkdir -p "$t/classes"
    # The runtime classpath (Maven Central), compiled against with javac: the compile scope of
    # older releases' poms lacks jars the launcher names (ZooKeeper's server in 9.4).
    local pom="$LAUNCHER/pom.xml"
    if (($(solr_major) >= 10)); then
      # Maven cannot read solr-core 10's POM (Jackson versions missing): a pom generated
      # from it, read leniently (launcher/lenient-pom.py says how), is resolved instead.
      mkdir -p "$t"; pom="$t/pom.xml"
      python3 "$LAUNCHER/lenient-pom.py" "$SOLR_VERSION" "$pom" $(lenient_pom_fallbacks) \
        || die "could not read the POMs of Solr $SOLR_VERSION"
      lenient_pom_fallbacks >"$t/fallbacks.txt"
    fi
    mvn -q -B -Dstyle.color=never -f "$pom" org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath \
      -Dsolr.version="$SOLR_VERSION" -Dmdep.includeScope=runtime -Dmdep.outputFile="$t/classpath.txt" >&2 \
      || die "Maven could not resolve Solr $SOLR_VERSION (solr-core, solr-test-framework)"
    compile_launcher "$t"
    touch "$t/.solrbench-build-stamp"
  fi
  # java @argfile keeps the 140-jar classpath out of `ps`.
  local argfile="$t/java-cp.args"
  if [[ ! -f "$argfile" || "$t/.solrbench-build-stamp" -nt "$argfile" ]]; then
    printf -- '-cp\n"%s:%s"\n' "$t/classes" "$(cat "$t/classpath.txt")" >"$argfile"
  fi
}

# compile_launcher DIR: the node and ZooKeeper mains must compile; the SolrJ mains
# (BulkIndex, SearchQtimes: transport-bench's SolrJ side; ExportStream: scripts/export-bench.sh's)
# use SolrJ API of recent releases and are left out, with a note, where another release than the pom's lacks it.
compile_launcher() {
  local t="$1" src="$LAUNCHER/src/main/java/dev/solrbench" javac node_src="$LAUNCHER/src/main/java/dev/solrbench"
  javac="$(dirname "$(readlink -f "$(java_bin)")")/javac"
  [[ -x "$javac" ]] || javac=javac
  # Solr 10 (Jetty 12, SolrJ 10): Node and Zk have their own sources, 9.x's stay as they are.
  (($(solr_major) >= 10)) && node_src="$LAUNCHER/src/solr10/java/dev/solrbench"
  if (($(solr_major) >= 10)) && ! grep -q 'solr-solrj-streaming' "$t/classpath.txt"; then build_streaming "$t" "$javac"; fi
  local cp="$t/classes:$(cat "$t/classpath.txt")" release; release="$(min_java)"
  "$javac" --release "$release" -nowarn -encoding UTF-8 -d "$t/classes" -cp "$cp" \
    "$src/Args.java" "$node_src/Node.java" "$node_src/Zk.java" >&2 \
    || die "the launcher (Node, Zk) does not compile against Solr $SOLR_VERSION"
  local main
  for main in BulkIndex SearchQtimes ExportStream; do
    "$javac" --release "$release" -nowarn -encoding UTF-8 -d "$t/classes" -cp "$cp" "$src/$main.java" \
      >"$t/$main.javac.txt" 2>&1 \
      || { [[ "$SOLR_VERSION" != "$DEFAULT_SOLR_VERSION" ]] || { cat "$t/$main.javac.txt" >&2; die "dev.solrbench.$main does not compile"; }
        log "note: dev.solrbench.$main does not compile against Solr $SOLR_VERSION (SolrJ bench side unavailable; see $t/$main.javac.txt)"; }
  done
}

gen_tls() {
  [[ -f "$TLS_DIR/ca.pem" && -f "$TLS_DIR/server.pem" && -f "$TLS_DIR/server.key" && -f "$TLS_DIR/server.p12" && -f "$TLS_DIR/truststore.p12" && -f "$TLS_DIR/password" ]] && return 0
  log "generating TLS material in $TLS_DIR"
  local tmp="$TLS_DIR.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  (
    cd "$tmp"
    openssl rand -hex 16 >password
    cat >ca.cnf <<'EOF'
[req]
distinguished_name = dn
x509_extensions = v3_ca
prompt = no
[dn]
CN = solrbench local test CA
[v3_ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
EOF
    cat >server.ext <<'EOF'
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost, IP:198.18.0.2, IP:198.19.0.2
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF
    openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days 3650 -config ca.cnf \
      -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -new -newkey rsa:2048 -nodes -sha256 -subj "/CN=localhost" \
      -keyout server.key -out server.csr 2>/dev/null
    openssl x509 -req -sha256 -days 3650 -in server.csr -CA ca.pem -CAkey ca.key -set_serial "0x$(openssl rand -hex 8)" \
      -extfile server.ext -out server.pem 2>/dev/null
    openssl pkcs12 -export -name solr -in server.pem -inkey server.key -certfile ca.pem \
      -out server.p12 -passout file:password
    keytool -importcert -noprompt -alias solrbench-ca -file ca.pem -keystore truststore.p12 \
      -storetype PKCS12 -storepass "$(cat password)" >/dev/null 2>&1
    openssl verify -CAfile ca.pem server.pem >/dev/null
    rm -f server.csr ca.cnf server.ext
    chmod 600 ca.key server.key password
  ) || { rm -rf "$tmp"; die "TLS material generation failed"; }
  rm -rf "$TLS_DIR"; mv "$tmp" "$TLS_DIR"
}

# gen_client_tls: client certificates of the local CA (one per key format) and one of a
# second CA nobody trusts; added beside an existing CA, idempotent.
gen_client_tls() {
  [[ -f "$TLS_DIR/wrong-ca-client.pem" ]] && return 0
  log "generating client certificates in $TLS_DIR"
  (
    cd "$TLS_DIR"
    printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
      "extendedKeyUsage = clientAuth" >client.ext
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out client-pkcs8.key 2>/dev/null
    openssl genrsa -traditional -out client-rsa.key 2048 2>/dev/null
    openssl ecparam -name prime256v1 -genkey -noout -out client-ec.key
    openssl req -x509 -new -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=solrbench wrong CA" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
      -keyout wrong-ca.key -out wrong-ca.pem 2>/dev/null
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out wrong-ca-client.key 2>/dev/null
    local k ca
    for k in client-pkcs8 client-rsa client-ec wrong-ca-client; do
      ca=ca; [[ "$k" == wrong-ca-client ]] && ca=wrong-ca
      openssl req -new -key "$k.key" -subj "/CN=solrbench-$k" -out "$k.csr" 2>/dev/null
      openssl x509 -req -sha256 -days 3650 -in "$k.csr" -CA "$ca.pem" -CAkey "$ca.key" \
        -set_serial "0x$(openssl rand -hex 8)" -extfile client.ext -out "$k.pem" 2>/dev/null
      rm -f "$k.csr"
    done
    openssl verify -CAfile ca.pem client-rsa.pem client-ec.pem client-pkcs8.pem >/dev/null
    rm -f client.ext wrong-ca.key
    chmod 600 ./*.key
  ) || { rm -f "$TLS_DIR"/client-* "$TLS_DIR"/wrong-ca*; die "client certificate generation failed"; }
}

# gen_node_tls: node.pem/node.p12, the server's key certified by the local CA for both ends
# of a connection (serverAuth, clientAuth): a cloud whose Jetty requires client certificates
# has its nodes present it to each other. Added beside an existing CA, idempotent.
gen_node_tls() {
  [[ -f "$TLS_DIR/node.p12" ]] && return 0
  log "generating the node certificate (server and client) in $TLS_DIR"
  (
    cd "$TLS_DIR"
    printf '%s\n' "basicConstraints = critical, CA:FALSE" \
      "keyUsage = critical, digitalSignature, keyEncipherment" \
      "extendedKeyUsage = serverAuth, clientAuth" \
      "subjectAltName = IP:127.0.0.1, DNS:localhost, IP:198.18.0.2, IP:198.19.0.2" \
      "subjectKeyIdentifier = hash" "authorityKeyIdentifier = keyid" >node.ext
    openssl req -new -key server.key -subj "/CN=localhost" -out node.csr 2>/dev/null
    openssl x509 -req -sha256 -days 3650 -in node.csr -CA ca.pem -CAkey ca.key \
      -set_serial "0x$(openssl rand -hex 8)" -extfile node.ext -out node.pem 2>/dev/null
    openssl verify -CAfile ca.pem -purpose sslclient node.pem >/dev/null
    openssl verify -CAfile ca.pem -purpose sslserver node.pem >/dev/null
    openssl pkcs12 -export -name solr -in node.pem -inkey server.key -certfile ca.pem \
      -out node.p12.tmp -passout file:password
    mv node.p12.tmp node.p12
    rm -f node.csr node.ext
  ) || { rm -f "$TLS_DIR"/node.*; die "node certificate generation failed"; }
}

cmd_setup() {
  if [[ "${1:-}" == --solr-version ]]; then SOLR_VERSION="${2:?--solr-version needs a value}"; fi
  install_prereqs
  mkdir -p "$RUN/.locks"
  exec 8>"$RUN/.locks/.setup"
  flock -w 600 8 || die "timed out waiting for another setup"
  build_launcher
  gen_tls
  gen_client_tls
  gen_node_tls
  exec 8>&-
}

# ---------------------------------------------------------------- instance config

# Instance settings (saved to run/NAME/instance.env, reused by start-node).
MODE=""; TLS=0; CLIENT_AUTH=0; BASIC_AUTH=0; HEAP=512m; JVM_OPTS=""; JAVA_HOME_OPT=""; POLL=5; IDLE_MS=120000
AUTO_COMMIT=-1; AUTO_SOFT_COMMIT=-1; VDIM=768; GZIP_INFLATE=0; START_TIMEOUT="${SOLR_SH_START_TIMEOUT:-120}"
PORT_BASE=0   # 0: ports picked by the kernel; else node i gets PORT_BASE+i-1, ZooKeeper PORT_BASE+10
SHARDS=1; REPLICAS=2   # cloud: collection bench has SHARDS shards x REPLICAS replicas
# --replica-types (cloud only): one replica of each listed type (nrt|tlog|pull, repeats allowed)
# instead of replicationFactor=2, spread over node1 and node2 by Solr's placement.
REPLICA_TYPES=""
CONFIGSET=bench   # --configset: the configset, and the name of the core or collection

save_env() {
  local f="$RUN/$1/instance.env"
  {
    for v in MODE TLS CLIENT_AUTH BASIC_AUTH HEAP JVM_OPTS JAVA_HOME_OPT POLL IDLE_MS AUTO_COMMIT AUTO_SOFT_COMMIT VDIM GZIP_INFLATE START_TIMEOUT PORT_BASE SHARDS REPLICAS REPLICA_TYPES SOLR_VERSION CONFIGSET; do
      printf '%s=%q\n' "$v" "${!v}"
    done
  } >"$f"
}
load_env() {
  local f="$RUN/$1/instance.env"
  [[ -f "$f" ]] || die "no instance '$1' (no $f)"
  BASIC_AUTH=0   # absent from instances saved before --basic-auth
  CONFIGSET=bench   # absent from instances saved before --configset
  # shellcheck disable=SC1090
  source "$f"
}
signature() {
  local sig="$MODE|$TLS|$CLIENT_AUTH|$HEAP|$JVM_OPTS|$JAVA_HOME_OPT|$POLL|$IDLE_MS|$AUTO_COMMIT|$AUTO_SOFT_COMMIT|$VDIM|$GZIP_INFLATE|${PORT_BASE:-0}"
  # The default layout (1 x 2) keeps the signature instances had before --shards/--replicas.
  [[ "${SHARDS:-1}|${REPLICAS:-2}" == "1|2" ]] || sig+="|${SHARDS}x${REPLICAS}"
  [[ -z "${REPLICA_TYPES:-}" ]] || sig+="|${REPLICA_TYPES}"
  # The pom's release keeps the signature instances had before --solr-version.
  [[ "$SOLR_VERSION" == "$DEFAULT_SOLR_VERSION" ]] || sig+="|solr-$SOLR_VERSION"
  [[ "${BASIC_AUTH:-0}" == 0 ]] || sig+="|basic-auth"
  [[ "${CONFIGSET:-bench}" == bench ]] || sig+="|configset-$CONFIGSET"
  echo "$sig"
}

# fixed_port N: the port of the Nth node (1-based) when --port was given, else 0 (any).
fixed_port() { if [[ "${PORT_BASE:-0}" -gt 0 ]]; then echo $((PORT_BASE + $1 - 1)); else echo 0; fi; }

nodes_of_mode() {
  case "$1" in
    standalone) echo node1 ;;
    pair) echo leader follower ;;
    cloud) echo node1 node2 ;;
    *) die "unknown mode '$1' (standalone|pair|cloud)" ;;
  esac
}
scheme() { [[ "$TLS" == 1 ]] && echo https || echo http; }
base_url() { echo "$(scheme)://127.0.0.1:$1/solr"; }

# curl against our nodes (CA-aware). Prints the body; never fails.
scurl() {
  local args=(-sS --max-time "${CURL_MAX_TIME:-10}")
  [[ "$TLS" == 1 ]] && args+=(--cacert "$TLS_DIR/ca.pem")
  [[ "$CLIENT_AUTH" == 1 ]] && args+=(--cert "$TLS_DIR/client-pkcs8.pem" --key "$TLS_DIR/client-pkcs8.key")
  [[ "${BASIC_AUTH:-0}" == 1 ]] && args+=(-u "$BASIC_USER:$BASIC_PASSWORD")
  curl "${args[@]}" "$@" 2>/dev/null || true
}

# Is a started node answering? standalone/pair: core ping. cloud: node healthy with its cores active.
node_answers() {
  local name="$1" node="$2" port url body
  port="$(node_port "$name" "$node")"; [[ -n "$port" ]] || return 1
  url="$(base_url "$port")"
  if [[ "$MODE" == cloud ]]; then
    body="$(CURL_MAX_TIME=5 scurl "$url/admin/info/health?requireHealthyCores=true&wt=json")"
  else
    body="$(CURL_MAX_TIME=5 scurl "$url/$CONFIGSET/admin/ping?wt=json")"
  fi
  [[ "$body" =~ \"status\"[[:space:]]*:[[:space:]]*\"OK\" ]]
}

# ---------------------------------------------------------------- launching JVMs

# --basic-auth: the user every request authenticates as, and security.json's line for it
# (base64 sha256(sha256(salt + password)), base64 salt: Solr's format for SolrRocks).
BASIC_USER=solr; BASIC_PASSWORD=SolrRocks
# --client-auth: Solr's CertAuthPlugin (the principal is the certificate's subject).
cert_security_json() { echo '{"authentication":{"class":"solr.CertAuthPlugin"}}'; }
basic_security_json() {
  printf '%s\n' '{"authentication":{"class":"solr.BasicAuthPlugin","blockUnknown":true,"credentials":{"solr":"IV0EHq1OnNrj6gvRCwvFwTrZ1+z1oBbnQdiVC3otuq0= Ndd7LKvVBAaZIF0QAVi1ekCfAJXr1GGfLtRUXhgrF8c="}}}'
}

write_node_home() {
  local name="$1" node="$2" leader_port="${3:-}"
  local nd; nd="$(node_dir "$name" "$node")"
  mkdir -p "$nd/home" "$nd/logs"
  if (($(solr_major) >= 10)); then cp "$ROOT/conf/solr10.xml" "$nd/home/solr.xml"; else cp "$ROOT/conf/solr.xml" "$nd/home/solr.xml"; fi
  [[ "$MODE" == cloud ]] && return 0
  [[ "$CLIENT_AUTH" == 1 ]] && cert_security_json >"$nd/home/security.json"
  [[ "$BASIC_AUTH" == 1 ]] && basic_security_json >"$nd/home/security.json"
  mkdir -p "$nd/home/$CONFIGSET"
  {
    echo "name=$CONFIGSET"
    [[ "$CONFIGSET" == bench ]] && echo "configSet=bench"
    if [[ "$MODE" == pair && "$node" == leader ]]; then
      echo "bench.leader.enable=true"
    elif [[ "$MODE" == pair && "$node" == follower ]]; then
      echo "bench.follower.enable=true"
      echo "bench.leaderUrl=$(base_url "$leader_port")/bench"
      printf 'bench.pollInterval=%02d:%02d:%02d\n' $((POLL / 3600)) $((POLL % 3600 / 60)) $((POLL % 60))
    fi
  } >"$nd/home/$CONFIGSET/core.properties"
  [[ "$CONFIGSET" == bench ]] || cp -r "$ROOT/configsets/$CONFIGSET/conf" "$nd/home/$CONFIGSET/conf"
}

# spawn_jvm NAME NODE MAINCLASS ARGS...: starts the JVM detached (own session), records its pid.
spawn_jvm() {
  local name="$1" node="$2" main="$3"; shift 3
  local nd java; nd="$(node_dir "$name" "$node")"
  java="$(java_bin)"
  local jopts=(-Xms"$HEAP" -Xmx"$HEAP")
  [[ "$node" == zk ]] && jopts=(-Xms128m -Xmx256m)
  local props=(
    "-Dsolrbench.id=$name/$node"
    "-Dsolr.log.dir=$nd/logs"
    "-Dlog4j2.configurationFile=$ROOT/conf/log4j2.xml"
    "-Dsolr.disable.allowUrls=true"
    "-DconfigSetBaseDir=$ROOT/configsets"
    "-Dsolr.vector.dim=$VDIM"
    "-Dsolr.autoCommit.maxTime=$AUTO_COMMIT"
    "-Dsolr.autoSoftCommit.maxTime=$AUTO_SOFT_COMMIT"
    "-Djava.io.tmpdir=$nd"
    "-Dzookeeper.admin.enableServer=false"
    # BACKUP/RESTORE to the local filesystem repository: one folder every node may write.
    "-Dsolr.allowPaths=$RUN/$name/backups"
  )
  mkdir -p "$RUN/$name/backups"
  if [[ "$TLS" == 1 ]]; then
    props+=(
      "-Djavax.net.ssl.trustStore=$TLS_DIR/truststore.p12"
      "-Djavax.net.ssl.trustStorePassword=$(cat "$TLS_DIR/password")"
      "-Djavax.net.ssl.trustStoreType=PKCS12"
    )
    # A cloud requiring client certificates: Solr's own HTTP clients (node to node) present
    # the node's certificate, as SOLR_SSL_KEY_STORE does in the distribution.
    if [[ "$CLIENT_AUTH" == 1 && "$MODE" == cloud && "$node" != zk ]]; then
      props+=(
        "-Djavax.net.ssl.keyStore=$(node_keystore)"
        "-Djavax.net.ssl.keyStorePassword=$(cat "$TLS_DIR/password")"
        "-Djavax.net.ssl.keyStoreType=PKCS12"
      )
    fi
  fi
  local extra=()
  # shellcheck disable=SC2206
  [[ -n "$JVM_OPTS" ]] && extra=($JVM_OPTS)
  rm -f "$nd/port.new"
  : >"$nd/console.log"
  # fds 8/9 hold our flock locks: the JVM must not inherit them.
  setsid "$java" "${jopts[@]}" "${props[@]}" "${extra[@]}" "@$(launcher_dir)/java-cp.args" "$main" "$@" \
    </dev/null >>"$nd/console.log" 2>&1 8>&- 9>&- &
  local pid=$!
  echo "$pid" >"$nd/pid"
  # Until the forked child has exec'd java, /proc/PID/cmdline is not yet ours: wait for it so
  # pid_alive() does not mistake a just-forked JVM for a dead one.
  local deadline=$((SECONDS + 10))
  until pid_alive "$pid" "$name/$node"; do
    kill -0 "$pid" 2>/dev/null || return 0   # exited already; wait_port reports it
    ((SECONDS >= deadline)) && { kill -KILL "$pid" 2>/dev/null; die "could not exec $java for $name/$node"; }
    sleep 0.05
  done
}

# node_keystore: the node's key and certificate; a cloud requiring client certificates uses
# the one fit for both ends (its nodes are each other's clients).
node_keystore() {
  if [[ "$CLIENT_AUTH" == 1 && "$MODE" == cloud ]]; then echo "$TLS_DIR/node.p12"; else echo "$TLS_DIR/server.p12"; fi
}

spawn_node() {
  local name="$1" node="$2" port="${3:-0}"
  local nd; nd="$(node_dir "$name" "$node")"
  local args=(--home "$nd/home" --port "$port" --port-file "$nd/port.new"
    --idle-timeout-ms "$IDLE_MS" --gzip-inflate-buffer "$([[ "$GZIP_INFLATE" == 1 ]] && echo 65536 || echo 0)")
  [[ "$TLS" == 1 ]] && args+=(--keystore "$(node_keystore)" --keystore-password-file "$TLS_DIR/password")
  [[ "$CLIENT_AUTH" == 1 ]] && args+=(--client-auth-truststore "$TLS_DIR/truststore.p12")
  [[ "$MODE" == cloud ]] && args+=(--zk-host "127.0.0.1:$(node_port "$name" zk)")
  spawn_jvm "$name" "$node" dev.solrbench.Node "${args[@]}"
}

spawn_zk() {
  local name="$1" port="${2:-0}"
  local nd; nd="$(node_dir "$name" zk)"
  mkdir -p "$nd/data" "$nd/logs"
  local security=()
  if [[ "$BASIC_AUTH" == 1 ]]; then
    basic_security_json >"$nd/security.json"
    security=(--security-json "$nd/security.json")
  elif [[ "$CLIENT_AUTH" == 1 ]]; then
    cert_security_json >"$nd/security.json"
    security=(--security-json "$nd/security.json")
  fi
  spawn_jvm "$name" zk dev.solrbench.Zk --data-dir "$nd/data" --confdir "$ROOT/configsets/$CONFIGSET/conf" \
    --port "$port" --port-file "$nd/port.new" --tls "$([[ "$TLS" == 1 ]] && echo true || echo false)" \
    "${security[@]}"
}

# node_failed NAME NODE REASON: one error line naming node + log, then the last 20 log lines.
node_failed() {
  local name="$1" node="$2" reason="$3" nd fatal
  nd="$(node_dir "$name" "$node")"
  fatal="$(grep -m1 '^FATAL: ' "$nd/console.log" 2>/dev/null | sed 's/^FATAL: //' || true)"
  [[ -n "$fatal" ]] && reason="$fatal"
  echo "$PROG: error: node $name/$node: $reason (log: $nd/logs/solr.log)" >&2
  if [[ -s "$nd/logs/solr.log" ]]; then
    echo "--- last 20 lines of $nd/logs/solr.log" >&2
    tail -n 20 "$nd/logs/solr.log" >&2
  fi
  if [[ -s "$nd/console.log" ]]; then
    echo "--- last 20 lines of $nd/console.log" >&2
    tail -n 20 "$nd/console.log" >&2
  fi
  exit 1
}

# wait_port NAME NODE DEADLINE: wait for the JVM to write its port (= Jetty + cores started).
wait_port() {
  local name="$1" node="$2" deadline="$3" nd pid
  nd="$(node_dir "$name" "$node")"; pid="$(cat "$nd/pid")"
  while [[ ! -s "$nd/port.new" ]]; do
    pid_alive "$pid" "$name/$node" || node_failed "$name" "$node" "JVM exited during startup"
    ((SECONDS >= deadline)) && node_failed "$name" "$node" "not started after ${START_TIMEOUT}s"
    sleep 0.2
  done
  mv -f "$nd/port.new" "$nd/port"
}

wait_answers() {
  local name="$1" node="$2" deadline="$3" nd pid
  nd="$(node_dir "$name" "$node")"; pid="$(cat "$nd/pid")"
  until node_answers "$name" "$node"; do
    pid_alive "$pid" "$name/$node" || node_failed "$name" "$node" "JVM exited"
    ((SECONDS >= deadline)) && node_failed "$name" "$node" "not answering $([[ "$MODE" == cloud ]] && echo "healthy (cores active)" || echo ping) after ${START_TIMEOUT}s"
    sleep 0.3
  done
}

# cloud: every node hosts an active replica of bench (node health requireHealthyCores checks
# the replica state; CORES STATUS checks it exists), and CLUSTERSTATUS says health GREEN for
# the collection and each of its SHARDS shards (every replica active on a live node, a leader).
wait_collection() {
  local name="$1" deadline="$2" node body green
  for node in $(nodes_of_mode cloud); do
    while :; do
      if node_answers "$name" "$node"; then
        body="$(CURL_MAX_TIME=5 scurl "$(base_url "$(node_port "$name" "$node")")/admin/cores?action=STATUS&wt=json&indexInfo=false")"
        [[ "$body" == *"\"${CONFIGSET}_shard"*'_replica'* ]] && break
      fi
      pid_alive "$(node_pid "$name" "$node")" "$name/$node" || node_failed "$name" "$node" "JVM exited"
      ((SECONDS >= deadline)) && node_failed "$name" "$node" "replica of collection $CONFIGSET not active after ${START_TIMEOUT}s"
      sleep 0.3
    done
  done
  while :; do
    body="$(CURL_MAX_TIME=5 scurl "$(base_url "$(node_port "$name" node1)")/admin/collections?action=CLUSTERSTATUS&collection=$CONFIGSET&wt=json")"
    green="$(grep -o '"health" *: *"GREEN"' <<<"$body" | wc -l || true)"
    ((green == ${SHARDS:-1} + 1)) && break
    pid_alive "$(node_pid "$name" node1)" "$name/node1" || node_failed "$name" node1 "JVM exited"
    ((SECONDS >= deadline)) && node_failed "$name" node1 "collection $CONFIGSET not GREEN (every replica active, every shard led) after ${START_TIMEOUT}s"
    sleep 0.3
  done
}

# preferred_leaders BODY: how many replicas of a CLUSTERSTATUS body carry preferredLeader;
# with --led, how many of them are also the leader.
preferred_leaders() {
  local body="$1" led="${2:-}" n=0 part
  while IFS= read -r part; do
    if [[ "$part" == *'"property.preferredleader":"true"'* ]] && [[ -z "$led" || "$part" == *'"leader":"true"'* ]]; then
      n=$((n + 1))
    fi
  done < <(tr -d '\n ' <<<"$body" | sed 's/"core_node/\n/g')
  echo "$n"
}

# cloud with several shards: spread the shard leaders over the nodes (Solr elects wherever a
# replica registers first, often all on one node). BALANCESHARDUNIQUE gives one replica per
# shard the preferredLeader property, balanced over the nodes; once the cluster state shows
# it, REBALANCELEADERS moves leadership there (repeated until every preferred replica leads).
spread_leaders() {
  local name="$1" deadline="$2" url body balanced_at=-100 rebalanced_at=-100
  url="$(base_url "$(node_port "$name" node1)")/admin/collections"
  # Best effort within 60 s (and the start deadline): the placement helps tests tell nodes
  # apart, but a cloud whose leaders share a node is still a working cloud.
  local give_up=$((SECONDS + 60))
  ((give_up > deadline)) && give_up=$deadline
  while :; do
    body="$(CURL_MAX_TIME=5 scurl "$url?action=CLUSTERSTATUS&collection=$CONFIGSET&wt=json")"
    (($(preferred_leaders "$body" --led) == SHARDS)) && return 0
    if (($(preferred_leaders "$body") != SHARDS)); then
      # The property is not (yet) on one replica per shard: (re)assign it, at most every 10 s.
      if ((SECONDS - balanced_at >= 10)); then
        CURL_MAX_TIME=30 scurl "$url?action=BALANCESHARDUNIQUE&collection=$CONFIGSET&property=preferredLeader&wt=json" >/dev/null || true
        balanced_at=$SECONDS
      fi
    elif ((SECONDS - rebalanced_at >= 5)); then
      # Move leadership to the preferred replicas; give each call time to settle.
      CURL_MAX_TIME=60 scurl "$url?action=REBALANCELEADERS&collection=$CONFIGSET&maxWaitSeconds=30&wt=json" >/dev/null || true
      rebalanced_at=$SECONDS
    fi
    if ((SECONDS >= give_up)); then
      log "warning: $name: shard leaders not spread over the nodes after 60 s; continuing with Solr's placement"
      return 0
    fi
    sleep 0.5
  done
}

write_nodes_tsv() {
  local name="$1" node port
  : >"$RUN/$name/nodes.tsv.tmp"
  for node in $(nodes_of_mode "$MODE"); do
    port="$(node_port "$name" "$node")"
    printf '%s\t%s\t%s\t%s\n' "$node" "$port" "$(node_pid "$name" "$node")" "$(base_url "$port")" >>"$RUN/$name/nodes.tsv.tmp"
  done
  mv -f "$RUN/$name/nodes.tsv.tmp" "$RUN/$name/nodes.tsv"
  [[ "$MODE" == cloud ]] && node_port "$name" zk >"$RUN/$name/zk.port"
  return 0
}

print_urls() {
  local name="$1" node
  for node in $(nodes_of_mode "$MODE"); do
    echo "node $node $(base_url "$(node_port "$name" "$node")")"
  done
  [[ "$TLS" == 1 ]] && echo "ca $TLS_DIR/ca.pem"
  return 0
}

all_alive_and_answering() {
  local name="$1" node
  [[ "$MODE" == cloud ]] && { node_is_running "$name" zk || return 1; }
  for node in $(nodes_of_mode "$MODE"); do
    node_is_running "$name" "$node" && node_answers "$name" "$node" || return 1
  done
}

all_known_nodes() {
  local name="$1"
  # nodes first, zk last
  case "$MODE" in
    cloud) echo node1 node2 zk ;;
    *) nodes_of_mode "$MODE" ;;
  esac
}

stop_instance() {
  local name="$1"
  [[ -f "$RUN/$name/instance.env" ]] || return 0
  ( load_env "$name"
    local nodes; nodes="$(all_known_nodes "$name")"
    stop_nodes "$name" ${nodes/zk/}
    [[ "$MODE" == cloud ]] && stop_nodes "$name" zk
    true )
}

lock_instance() {
  mkdir -p "$RUN/.locks"
  exec 9>"$RUN/.locks/$1"
  flock -w 600 9 || die "timed out waiting for the lock of instance $1"
}

# ---------------------------------------------------------------- commands

FAIL_CLEANUP=""
on_exit() {
  local rc=$?
  if [[ $rc != 0 && -n "$FAIL_CLEANUP" ]]; then
    log "cleaning up after failure: $FAIL_CLEANUP"
    eval "$FAIL_CLEANUP" || true
  fi
}
trap on_exit EXIT

cmd_start() {
  [[ $# -ge 1 ]] || die "usage: start standalone|pair|cloud [options]"
  MODE="$1"; shift
  nodes_of_mode "$MODE" >/dev/null
  local name="$MODE"
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --name) name="${2:?--name needs a value}"; shift 2 ;;
      --solr-version) SOLR_VERSION="${2:?--solr-version needs a value}"; shift 2 ;;
      --tls) TLS=1; shift ;;
      --client-auth) CLIENT_AUTH=1; shift ;;
      --basic-auth) BASIC_AUTH=1; shift ;;
      --heap) HEAP="${2:?}"; shift 2 ;;
      --jvm-opts) JVM_OPTS="${2?}"; shift 2 ;;
      --java-home) JAVA_HOME_OPT="${2:?}"; shift 2 ;;
      --poll-interval) POLL="${2:?}"; shift 2 ;;
      --idle-timeout-ms) IDLE_MS="${2:?}"; shift 2 ;;
      --auto-commit-ms) AUTO_COMMIT="${2:?}"; shift 2 ;;
      --auto-soft-commit-ms) AUTO_SOFT_COMMIT="${2:?}"; shift 2 ;;
      --vector-dim) VDIM="${2:?}"; shift 2 ;;
      --gzip-inflate) GZIP_INFLATE=1; shift ;;
      --timeout) START_TIMEOUT="${2:?}"; shift 2 ;;
      --port) PORT_BASE="${2:?}"; shift 2 ;;
      --shards) SHARDS="${2:?}"; shift 2 ;;
      --replicas) REPLICAS="${2:?}"; shift 2 ;;
      --replica-types) REPLICA_TYPES="${2:?}"; shift 2 ;;
      --configset) CONFIGSET="${2:?--configset needs a name}"; shift 2 ;;
      *) die "unknown start option '$1'" ;;
    esac
  done
  [[ "$name" =~ ^[A-Za-z0-9_.-]+$ && "$name" != tls ]] || die "bad instance name '$name'"
  [[ "$CLIENT_AUTH" == 0 || ( "$TLS" == 1 && "$MODE" != pair ) ]] \
    || die "--client-auth needs --tls, in standalone or cloud mode"
  [[ "$BASIC_AUTH" == 0 || ( "$MODE" != pair && "$CLIENT_AUTH" == 0 ) ]] \
    || die "--basic-auth is for standalone or cloud mode, without --client-auth"
  [[ "$CONFIGSET" =~ ^[A-Za-z0-9_.-]+$ && -f "$ROOT/configsets/$CONFIGSET/conf/solrconfig.xml" ]] \
    || die "no configset '$CONFIGSET' (local-solr/configsets/NAME/conf/solrconfig.xml)"
  [[ "$CONFIGSET" == bench || "$MODE" != pair ]] || die "--configset is for standalone or cloud (the pair's replication is the bench configset's)"
  local n
  for n in POLL IDLE_MS VDIM START_TIMEOUT PORT_BASE; do [[ "${!n}" =~ ^[0-9]+$ ]] || die "--${n,,} must be a non-negative integer"; done
  for n in AUTO_COMMIT AUTO_SOFT_COMMIT; do [[ "${!n}" =~ ^-?[0-9]+$ ]] || die "commit intervals must be integers (ms, -1 = off)"; done
  [[ "$HEAP" =~ ^[0-9]+[kKmMgG]?$ ]] || die "bad --heap '$HEAP'"
  for n in SHARDS REPLICAS; do [[ "${!n}" =~ ^[1-9][0-9]*$ ]] || die "--${n,,} must be a positive integer"; done
  [[ "$MODE" == cloud || "$SHARDS|$REPLICAS" == "1|2" ]] || die "--shards and --replicas are for cloud mode only"
  [[ -z "$REPLICA_TYPES" || ( "$MODE" == cloud && "$REPLICA_TYPES" =~ ^(nrt|tlog|pull)(,(nrt|tlog|pull))*$ ) ]] \
    || die "--replica-types is cloud-only, a comma-separated list of nrt, tlog, pull"
  [[ -z "$REPLICA_TYPES" || "$SHARDS|$REPLICAS" == "1|2" ]] || die "--replica-types replaces --replicas (and takes one shard)"
  # TLOG/PULL replicas poll the leader every autoCommit/2 (else autoSoftCommit/2, else 3 s) in
  # whole seconds: under 2000 ms that is 0 and Solr never starts the poll ("Timer Task not
  # started"), so they would stay empty.
  if [[ "$REPLICA_TYPES" == *tlog* || "$REPLICA_TYPES" == *pull* ]]; then
    local poll_basis=-1
    if [[ "$AUTO_COMMIT" -ge 0 ]]; then poll_basis="$AUTO_COMMIT"; elif [[ "$AUTO_SOFT_COMMIT" -ge 0 ]]; then poll_basis="$AUTO_SOFT_COMMIT"; fi
    [[ "$poll_basis" -lt 0 || "$poll_basis" -ge 2000 ]] \
      || die "TLOG/PULL replicas poll every autoCommit/2 (or autoSoftCommit/2 without autoCommit) in whole seconds: $poll_basis ms would never replicate; use --auto-commit-ms >= 2000"
  fi

  cmd_setup
  local java; java="$(java_bin)"
  check_java_version "$java"
  lock_instance "$name"

  local want; want="$(signature)"
  if [[ -f "$RUN/$name/instance.env" ]]; then
    local have
    have="$( load_env "$name"; signature )"
    if [[ "$have" == "$want" ]] && ( load_env "$name"; all_alive_and_answering "$name" ); then
      log "instance $name already running"
      ( load_env "$name"; print_urls "$name" )
      return 0
    fi
    log "instance $name exists but is not fully running with these options: restarting it fresh"
    stop_instance "$name"
  fi

  rm -rf "${RUN:?}/$name"
  mkdir -p "$RUN/$name"
  save_env "$name"
  FAIL_CLEANUP="stop_instance $name"
  local t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT)) node
  case "$MODE" in
    standalone)
      write_node_home "$name" node1
      spawn_node "$name" node1 "$(fixed_port 1)"
      wait_port "$name" node1 "$deadline"
      wait_answers "$name" node1 "$deadline"
      ;;
    pair)
      write_node_home "$name" leader
      spawn_node "$name" leader "$(fixed_port 1)"
      wait_port "$name" leader "$deadline"
      write_node_home "$name" follower "$(node_port "$name" leader)"
      spawn_node "$name" follower "$(fixed_port 2)"
      wait_port "$name" follower "$deadline"
      wait_answers "$name" leader "$deadline"
      wait_answers "$name" follower "$deadline"
      ;;
    cloud)
      spawn_zk "$name" "$(if [[ "${PORT_BASE:-0}" -gt 0 ]]; then echo $((PORT_BASE + 10)); else echo 0; fi)"
      wait_port "$name" zk "$deadline"
      spawn_node_n=1
      for node in node1 node2; do write_node_home "$name" "$node"; spawn_node "$name" "$node" "$(fixed_port "$spawn_node_n")"; spawn_node_n=$((spawn_node_n + 1)); done
      for node in node1 node2; do wait_port "$name" "$node" "$deadline"; done
      for node in node1 node2; do wait_answers "$name" "$node" "$deadline"; done
      local p1 p2 body
      p1="$(node_port "$name" node1)"; p2="$(node_port "$name" node2)"
      body="$(CURL_MAX_TIME=$((START_TIMEOUT)) scurl "$(base_url "$p1")/admin/collections?action=CREATE&name=$CONFIGSET&router.name=compositeId&numShards=${SHARDS}&$(replica_counts)&collection.configName=bench&createNodeSet=127.0.0.1:${p1}_solr,127.0.0.1:${p2}_solr&wt=json")"
      if ! [[ "$body" =~ \"status\"[[:space:]]*:[[:space:]]*0 ]] || [[ "$body" == *'"failure"'* ]]; then
        node_failed "$name" node1 "collection CREATE failed: $(tr -d '\n' <<<"$body" | cut -c1-400)"
      fi
      wait_collection "$name" "$deadline"
      if ((SHARDS > 1)); then
        spread_leaders "$name" "$deadline"
        wait_collection "$name" "$deadline"
      fi
      ;;
  esac
  write_nodes_tsv "$name"
  FAIL_CLEANUP=""
  log "instance $name ($MODE$([[ "$TLS" == 1 ]] && echo ", tls"), Solr $SOLR_VERSION) started in $((SECONDS - t0))s"
  print_urls "$name"
}

# CREATE's replica counts: replicationFactor=2, or one replica per entry of --replica-types.
replica_counts() {
  [[ -z "$REPLICA_TYPES" ]] && { echo "replicationFactor=${REPLICAS}"; return 0; }
  local t n=0 tl=0 p=0
  for t in ${REPLICA_TYPES//,/ }; do
    case "$t" in nrt) n=$((n + 1)) ;; tlog) tl=$((tl + 1)) ;; pull) p=$((p + 1)) ;; esac
  done
  echo "nrtReplicas=$n&tlogReplicas=$tl&pullReplicas=$p"
}

cmd_stop() {
  local target="${1:-}"
  if [[ "$target" == --all ]]; then
    local d
    for d in "$RUN"/*/; do
      [[ -f "$d/instance.env" ]] || continue
      local n; n="$(basename "$d")"
      ( lock_instance "$n"; stop_instance "$n" )
      log "stopped $n"
    done
    return 0
  fi
  [[ -n "$target" ]] || die "usage: stop NAME | --all"
  [[ -f "$RUN/$target/instance.env" ]] || { log "no instance $target"; return 0; }
  lock_instance "$target"
  stop_instance "$target"
  log "stopped $target"
}

check_node_arg() {
  local name="$1" node="$2"
  load_env "$name"
  [[ " $(all_known_nodes "$name") " == *" $node "* ]] || die "instance $name ($MODE) has no node '$node' (nodes: $(all_known_nodes "$name"))"
}

cmd_kill_node() {
  [[ $# == 2 ]] || die "usage: kill-node NAME NODE"
  check_node_arg "$1" "$2"; lock_instance "$1"
  kill_node_hard "$1" "$2"
  log "killed $1/$2 (SIGKILL)"
}

cmd_stop_node() {
  [[ $# == 2 ]] || die "usage: stop-node NAME NODE"
  check_node_arg "$1" "$2"; lock_instance "$1"
  stop_nodes "$1" "$2"
  log "stopped $1/$2"
}

cmd_start_node() {
  [[ $# == 2 ]] || die "usage: start-node NAME NODE"
  local name="$1" node="$2"
  check_node_arg "$name" "$node"
  local port; port="$(node_port "$name" "$node")"
  [[ -n "$port" ]] || die "node $name/$node has no recorded port (was the instance started?)"
  build_launcher
  lock_instance "$name"
  local deadline=$((SECONDS + START_TIMEOUT)) t0=$SECONDS
  if node_is_running "$name" "$node"; then
    if [[ "$node" == zk ]] || node_answers "$name" "$node"; then
      log "$name/$node already running"
      print_urls "$name"; return 0
    fi
    die "node $name/$node is running (pid $(node_pid "$name" "$node")) but not answering; stop-node it first"
  fi
  FAIL_CLEANUP="kill_node_hard $name $node"
  if [[ "$node" == zk ]]; then
    spawn_zk "$name" "$port"
    wait_port "$name" zk "$deadline"
  else
    [[ "$MODE" == cloud ]] && ! node_is_running "$name" zk && die "ZooKeeper of $name is not running; start-node $name zk first"
    spawn_node "$name" "$node" "$port"
    wait_port "$name" "$node" "$deadline"
    wait_answers "$name" "$node" "$deadline"
    if [[ "$MODE" == cloud ]]; then wait_collection "$name" "$deadline"; fi
  fi
  [[ "$(node_port "$name" "$node")" == "$port" ]] || die "node $name/$node came back on another port"
  FAIL_CLEANUP=""
  write_nodes_tsv "$name"
  log "$name/$node started in $((SECONDS - t0))s"
  print_urls "$name"
}

cmd_status() {
  local names=() d
  if [[ -n "${1:-}" ]]; then
    [[ -f "$RUN/$1/instance.env" ]] || die "no instance '$1'"
    names=("$1")
  else
    for d in "$RUN"/*/; do [[ -f "$d/instance.env" ]] && names+=("$(basename "$d")"); done
  fi
  local name node state pid port
  for name in "${names[@]}"; do
    ( load_env "$name"
      echo "instance $name mode=$MODE tls=$([[ $TLS == 1 ]] && echo yes || echo no) heap=$HEAP solr=$SOLR_VERSION"
      for node in $(all_known_nodes "$name"); do
        pid="$(node_pid "$name" "$node")"; port="$(node_port "$name" "$node")"
        if node_is_running "$name" "$node"; then
          if [[ "$node" == zk ]] || node_answers "$name" "$node"; then state=up; else state=not-answering; fi
        else
          state=down; pid="-"
        fi
        if [[ "$node" == zk ]]; then
          echo "  $node $state port=${port:--} pid=$pid zkHost=127.0.0.1:${port:--}"
        else
          echo "  $node $state port=${port:--} pid=$pid url=$([[ -n "$port" ]] && base_url "$port" || echo -)"
        fi
      done )
  done
}

cmd_urls() {
  [[ $# == 1 ]] || die "usage: urls NAME"
  load_env "$1"
  print_urls "$1"
}

usage() { sed -n '2,34p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 1 ]] || usage
cmd="$1"; shift
case "$cmd" in
  setup) cmd_setup "$@" ;;
  start) cmd_start "$@" ;;
  stop) cmd_stop "$@" ;;
  kill-node) cmd_kill_node "$@" ;;
  stop-node) cmd_stop_node "$@" ;;
  start-node) cmd_start_node "$@" ;;
  status) cmd_status "$@" ;;
  urls) cmd_urls "$@" ;;
  -h|--help|help) usage ;;
  *) die "unknown command '$cmd' (setup|start|stop|kill-node|stop-node|start-node|status|urls)" ;;
esac
