package dev.solrbench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.solr.client.solrj.io.SolrClientCache;
import org.apache.solr.client.solrj.io.Tuple;
import org.apache.solr.client.solrj.io.stream.SolrStream;
import org.apache.solr.client.solrj.io.stream.StreamContext;
import org.apache.solr.common.params.ModifiableSolrParams;

/**
 * The SolrJ side of {@code scripts/export-bench.sh}: one {@code /export} read through SolrJ's
 * streaming API ({@link SolrStream}, JSON tuples) with the same q/fl/sort as the Rust side
 * ({@code solr-client/benches/export_stream.rs}), measured from inside this JVM.
 *
 * <p>Usage: {@code ExportStream CORE_URL} (e.g. {@code http://127.0.0.1:PORT/solr/bench}).
 * Prints one line {@code EXPORTJSON {...}}: docs, id_sum, id_xor (ids are numbers
 * {@code 0..numFound}; the script checks every id came once), wall_s, docs_per_s, cpu_s (this
 * JVM's process CPU time during the export: every thread, GC and JIT included) and
 * rss_growth_kib (VmHWM at the end minus VmRSS just before the export, after a peak reset
 * through /proc/self/clear_refs). Exits 1 when the export fails. The JVM is fresh: the timed
 * read includes loading and JIT-compiling SolrJ's HTTP client and tuple parser, as the Rust
 * side's includes its first connection.
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

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: ExportStream CORE_URL");
      System.exit(2);
    }
    ModifiableSolrParams p = new ModifiableSolrParams();
    p.set("qt", "/export");
    p.set("q", "*:*");
    p.set("fl", "id,category,price,popularity");
    p.set("sort", "id asc");
    long n = 0, sum = 0, xor = 0, other = 0;
    try {
      Files.writeString(Path.of("/proc/self/clear_refs"), "5");
    } catch (Exception e) {
      // Not Linux or not allowed: VmHWM then counts from the JVM's start.
    }
    SolrClientCache cache = new SolrClientCache();
    long rss0 = statusKib("VmRSS:");
    long c0 = cpuNanos();
    long t0 = System.nanoTime();
    SolrStream stream = new SolrStream(args[0], p);
    StreamContext ctx = new StreamContext();
    ctx.setSolrClientCache(cache);
    stream.setStreamContext(ctx);
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
    } catch (Exception e) {
      System.err.println("export failed: " + e);
      System.exit(1);
    } finally {
      stream.close();
      cache.close();
    }
    double wall = (System.nanoTime() - t0) / 1e9;
    double cpu = (cpuNanos() - c0) / 1e9;
    long growth = Math.max(0, statusKib("VmHWM:") - rss0);
    if (other == Long.MIN_VALUE) {
      System.err.println("checksum " + other); // keeps the field reads from being elided
    }
    System.out.printf(
        "EXPORTJSON {\"client\":\"solrj\",\"docs\":%d,\"id_sum\":%d,\"id_xor\":%d,\"wall_s\":%.4f,"
            + "\"docs_per_s\":%.0f,\"cpu_s\":%.3f,\"rss_growth_kib\":%d}%n",
        n, sum, xor, wall, n / Math.max(wall, 1e-9), cpu, growth);
  }
}
