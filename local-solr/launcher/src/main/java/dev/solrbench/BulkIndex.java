package dev.solrbench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.solr.client.solrj.impl.ConcurrentUpdateHttp2SolrClient;
import org.apache.solr.client.solrj.impl.Http2SolrClient;
import org.apache.solr.client.solrj.response.UpdateResponse;
import org.apache.solr.common.SolrInputDocument;

/**
 * The SolrJ side of {@code transport-bench bulk-index}: indexes generated documents with
 * SolrJ's ConcurrentUpdateHttp2SolrClient (CUSC) or Http2SolrClient (batched adds) and prints
 * one JSON line per run. Nothing is committed: the caller commits and counts.
 *
 * <p>One JVM serves every round of a bench (a long-running application's JIT state, not a
 * cold start per round). It reads one command per line on stdin, {@code key=value} words:
 *
 * <pre>
 * mode=cusc|http2 url=http://127.0.0.1:PORT/solr collection=bench prefix=ID_PREFIX docs=N
 *     batch=1000 queue=100 threads=2
 * </pre>
 *
 * and answers each with one line {@code BULKJSON {...}} on stdout (other lines, such as log
 * output, are to be ignored): mode, docs, wall_s, docs_per_s, cpu_s (process CPU time of this
 * JVM during the run: every thread, GC and JIT included), errors (failures CUSC reported to
 * its error handler, or 1 when a batched add threw), and the settings. EOF ends the program.
 *
 * <p>The documents are the same as the Rust side's ({@code scenario/bulk_index/docs.rs}):
 * document {@code i} is a pure function of {@code i}, so both sides send the same bytes' worth.
 */
public final class BulkIndex {
  static final String[] WORDS = {
    "solr", "lucene", "index", "query", "shard", "replica", "leader", "segment", "merge",
    "commit", "token", "filter", "facet", "field", "score", "vector", "cursor", "schema",
    "stream", "batch", "queue", "thread", "socket", "buffer", "latency", "throughput",
    "cache", "router", "collection", "document", "search", "engine"
  };

  static String words(long i, int salt, int n) {
    StringBuilder sb = new StringBuilder();
    long seed = i * 2654435761L + (long) salt * 40503L;
    for (int k = 0; k < n; k++) {
      if (k > 0) sb.append(' ');
      seed = seed * 6364136223846793005L + 1442695040888963407L;
      sb.append(WORDS[(int) ((seed >>> 33) % WORDS.length)]);
    }
    return sb.toString();
  }

  /** Document {@code i}: id, title (4 words), body (40), category, price, popularity. */
  static SolrInputDocument doc(String prefix, long i) {
    SolrInputDocument d = new SolrInputDocument();
    d.addField("id", prefix + i);
    d.addField("title", words(i, 1, 4));
    d.addField("body", words(i, 2, 40));
    d.addField("category", "cat" + (i % 8));
    d.addField("price", (float) (i % 1000) / 10.0f);
    d.addField("popularity", (int) (i % 1000));
    return d;
  }

  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }
    return -1;
  }

  static Map<String, String> parse(String line) {
    Map<String, String> m = new HashMap<>();
    for (String w : line.trim().split("\\s+")) {
      int eq = w.indexOf('=');
      if (eq > 0) m.put(w.substring(0, eq), w.substring(eq + 1));
    }
    return m;
  }

  static String need(Map<String, String> m, String k) {
    String v = m.get(k);
    if (v == null || v.isEmpty()) throw new IllegalArgumentException("missing " + k + "=");
    return v;
  }

  static int num(Map<String, String> m, String k, int dflt) {
    String v = m.get(k);
    int n = v == null ? dflt : Integer.parseInt(v);
    if (n < 1) throw new IllegalArgumentException(k + " must be >= 1");
    return n;
  }

  static String esc(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  static String run(Map<String, String> m) throws Exception {
    String mode = need(m, "mode");
    String url = need(m, "url");
    String collection = need(m, "collection");
    String prefix = need(m, "prefix");
    int docs = num(m, "docs", 1);
    int batch = num(m, "batch", 1000);
    int queue = num(m, "queue", 100);
    int threads = num(m, "threads", 2);
    AtomicLong errors = new AtomicLong();
    String firstError = null;
    java.util.concurrent.atomic.AtomicReference<String> firstCuscError =
        new java.util.concurrent.atomic.AtomicReference<>();
    long cpu0 = processCpuNanos();
    long t0 = System.nanoTime();
    try (Http2SolrClient http = new Http2SolrClient.Builder(url).build()) {
      if (mode.equals("cusc")) {
        ConcurrentUpdateHttp2SolrClient.Builder b =
            new ConcurrentUpdateHttp2SolrClient.Builder(url, http)
                .withQueueSize(queue)
                .withThreadCount(threads)
                .withDefaultCollection(collection);
        // CUSC reports a failed streaming request only to handleError (it logs and goes on).
        ConcurrentUpdateHttp2SolrClient cusc =
            new ConcurrentUpdateHttp2SolrClient(b) {
              @Override
              public void handleError(Throwable ex) {
                errors.incrementAndGet();
                firstCuscError.compareAndSet(null, ex.toString());
              }
            };
        try {
          for (long i = 0; i < docs; i++) {
            cusc.add(doc(prefix, i));
          }
          cusc.blockUntilFinished();
        } finally {
          cusc.close();
        }
      } else if (mode.equals("http2")) {
        List<SolrInputDocument> buf = new ArrayList<>(batch);
        for (long i = 0; i < docs; i++) {
          buf.add(doc(prefix, i));
          if (buf.size() == batch || i == docs - 1) {
            try {
              UpdateResponse r = http.add(collection, buf);
              if (r.getStatus() != 0) errors.incrementAndGet();
            } catch (Exception e) {
              errors.incrementAndGet();
              if (firstError == null) firstError = e.toString();
            }
            buf = new ArrayList<>(batch);
          }
        }
      } else {
        throw new IllegalArgumentException("mode must be cusc or http2, not " + mode);
      }
    }
    if (firstError == null) firstError = firstCuscError.get();
    double wall = (System.nanoTime() - t0) / 1e9;
    long cpu1 = processCpuNanos();
    double cpu = cpu0 < 0 || cpu1 < 0 ? -1 : (cpu1 - cpu0) / 1e9;
    return String.format(
        java.util.Locale.ROOT,
        "{\"mode\":\"%s\",\"docs\":%d,\"wall_s\":%.6f,\"docs_per_s\":%.3f,\"cpu_s\":%.6f,"
            + "\"batch\":%d,\"queue\":%d,\"threads\":%d,\"errors\":%d,\"first_error\":%s,"
            + "\"java\":\"%s\"}",
        esc(mode), docs, wall, docs / Math.max(wall, 1e-9), cpu, batch, queue, threads,
        errors.get(), firstError == null ? "null" : "\"" + esc(firstError) + "\"",
        esc(System.getProperty("java.version")));
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      String out;
      try {
        out = run(parse(line));
      } catch (Exception e) {
        out = "{\"error\":\"" + esc(e.toString()) + "\"}";
      }
      System.out.println("BULKJSON " + out);
      System.out.flush();
    }
  }
}
