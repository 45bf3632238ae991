package dev.solrbench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.solr.client.solrj.impl.Http2SolrClient;
import org.apache.solr.client.solrj.io.SolrClientCache;
import org.apache.solr.client.solrj.io.Tuple;
import org.apache.solr.client.solrj.io.stream.SolrStream;
import org.apache.solr.client.solrj.io.stream.StreamContext;
import org.apache.solr.common.params.ModifiableSolrParams;

/**
 * The SolrJ side of {@code scripts/export-bench.sh}: {@code /export} reads through SolrJ's
 * streaming API ({@link SolrStream}, JSON tuples) with the same q/fl/sort as the Rust side
 * ({@code solr-client/benches/export_stream.rs}), measured from inside this JVM.
 *
 * <pre>
 * ExportStream CORE_URL http1|http2      (then one line "read" on stdin per read)
 * </pre>
 *
 * <p>The HTTP client is Jetty's, through SolrJ 9's {@code Http2SolrClient}: {@code http2} is its
 * default (HTTP/2; on a plain http URL, h2c with prior knowledge), {@code http1} the same client
 * built with {@code useHttp1_1(true)} (Jetty's HTTP/1.1 transport). It is handed to a {@link
 * SolrClientCache} ({@code new SolrClientCache(Http2SolrClient)}), which {@link SolrStream} asks
 * for its client: the cache derives its per-URL client from that one, sharing its Jetty client
 * and so its protocol.
 *
 * <p>Each line read from stdin is one read; the program ends at the end of stdin. The first read
 * is {@code cold}: its timed window includes building the client and the cache (class loading and
 * JIT of the client and the tuple parser happen in it; the JVM's own start does not). Later reads
 * are {@code warm}: the same client, connection pool and JIT-compiled code. Each read prints one
 * line {@code EXPORTJSON {...}}: client ({@code solrj-h1} or {@code solrj-h2}), phase, docs,
 * id_sum, id_xor (ids are numbers {@code 0..numFound}; the script checks every id came once),
 * wall_s, docs_per_s, cpu_s (this JVM's process CPU time during the read: every thread, GC and
 * JIT included) and rss_growth_kib (VmHWM at the end minus VmRSS just before the read, after a
 * peak reset through /proc/self/clear_refs). Exits 1 when a read fails.
 */
public final class ExportStream {
  private ExportStream() {}

  static long statusKib(String field) {
    try {
      for (String l : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (l.startsWith(field)) {
          return Long.parseLong(l.substring(field.length()).replace("kB", "").trim());
        }
      }
    } catch (Exception e) {
      return 0;
    }
    return 0;
  }

  static long cpuNanos() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      return sun.getProcessCpuTime();
    }
    return 0;
  }

  static void resetPeak() {
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception e) {
      // Not Linux or not allowed: VmHWM then counts from the JVM's start.
    }
  }

  /** The client and its cache, built on the first read (inside its timed window). */
  private Http2SolrClient client;

  private SolrClientCache cache;

  /** Counts of one read. */
  private long n, sum, xor, other;

  void open(boolean http1) {
    client = new Http2SolrClient.Builder().useHttp1_1(http1).build();
    cache = new SolrClientCache(client);
  }

  void close() {
    if (cache != null) {
      cache.close();
    }
    if (client != null) {
      client.close();
    }
  }

  /** One whole read of the export: every tuple's id counted, its other fields read. */
  void read(String coreUrl) throws Exception {
    ModifiableSolrParams p = new ModifiableSolrParams();
    p.set("qt", "/export");
    p.set("q", "*:*");
    p.set("fl", "id,category,price,popularity");
    p.set("sort", "id asc");
    SolrStream stream = new SolrStream(coreUrl, p);
    StreamContext ctx = new StreamContext();
    ctx.setSolrClientCache(cache);
    stream.setStreamContext(ctx);
    n = sum = xor = other = 0;
    try {
      stream.open();
      for (Tuple t = stream.read(); !t.EOF; t = stream.read()) {
        long id;
        try {
          id = Long.parseLong(t.getString("id"));
        } catch (NumberFormatException e) {
          id = Long.MAX_VALUE; // the script's sum check then fails
        }
        n++;
        sum += id;
        xor ^= id;
        String c = t.getString("category");
        Double price = t.getDouble("price");
        Long pop = t.getLong("popularity");
        other += (c == null ? 0 : c.length()) + (price == null ? 0 : price.longValue())
            + (pop == null ? 0 : pop);
      }
    } finally {
      stream.close();
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 2 || !(args[1].equals("http1") || args[1].equals("http2"))) {
      System.err.println("usage: ExportStream CORE_URL http1|http2 (one line on stdin per read)");
      System.exit(2);
    }
    boolean http1 = args[1].equals("http1");
    String label = http1 ? "solrj-h1" : "solrj-h2";
    ExportStream bench = new ExportStream();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try {
      for (int k = 0; in.readLine() != null; k++) {
        resetPeak();
        long rss0 = statusKib("VmRSS:");
        long c0 = cpuNanos();
        long t0 = System.nanoTime();
        try {
          if (k == 0) {
            bench.open(http1);
          }
          bench.read(args[0]);
        } catch (Exception e) {
          System.err.println("export failed: " + e);
          System.exit(1);
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        double cpu = (cpuNanos() - c0) / 1e9;
        long growth = Math.max(0, statusKib("VmHWM:") - rss0);
        if (bench.other == Long.MIN_VALUE) {
          System.err.println("checksum " + bench.other); // keeps the field reads from being elided
        }
        System.out.printf(
            "EXPORTJSON {\"client\":\"%s\",\"phase\":\"%s\",\"docs\":%d,\"id_sum\":%d,"
                + "\"id_xor\":%d,\"wall_s\":%.4f,\"docs_per_s\":%.0f,\"cpu_s\":%.3f,"
                + "\"rss_growth_kib\":%d}%n",
            label, k == 0 ? "cold" : "warm", bench.n, bench.sum, bench.xor, wall,
            bench.n / Math.max(wall, 1e-9), cpu, growth);
        System.out.flush();
      }
    } finally {
      bench.close();
    }
  }
}
