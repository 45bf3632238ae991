package dev.solrbench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/** Tiny "--key value" parser plus helpers shared by {@link Node} and {@link Zk}. */
final class Args {
  private final Map<String, String> values = new HashMap<>();

  Args(String[] argv) {
    for (int i = 0; i < argv.length; i++) {
      String a = argv[i];
      if (!a.startsWith("--") || i + 1 >= argv.length) {
        throw new IllegalArgumentException("expected --key value pairs, got: " + a);
      }
      values.put(a.substring(2), argv[++i]);
    }
  }

  String get(String key, String def) {
    String v = values.get(key);
    return v == null || v.isEmpty() ? def : v;
  }

  String require(String key) {
    String v = get(key, null);
    if (v == null) throw new IllegalArgumentException("missing required option --" + key);
    return v;
  }

  int getInt(String key, int def) {
    String v = get(key, null);
    return v == null ? def : Integer.parseInt(v);
  }

  /** Writes the port atomically (tmp file + rename) so a poller never reads a partial file. */
  static void writePortFile(Path file, int port) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, port + "\n", StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Flushes and stops log4j (its own shutdown hook is disabled in conf/log4j2.xml so that the
   * Solr shutdown is still logged). log4j-api is a runtime-only dependency, hence reflection. */
  static void shutdownLogging() {
    try {
      Class.forName("org.apache.logging.log4j.LogManager").getMethod("shutdown").invoke(null);
    } catch (ReflectiveOperationException | LinkageError ignored) {
      // no log4j: nothing to flush
    }
  }

  /** One line on stderr (the script shows it) and exit. */
  static void die(int code, String msg) {
    System.err.println("FATAL: " + msg);
    System.err.flush();
    Runtime.getRuntime().halt(code);
  }
}
