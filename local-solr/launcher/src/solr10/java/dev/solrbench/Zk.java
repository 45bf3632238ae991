package dev.solrbench;

import java.io.File;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.solr.common.cloud.SolrZkClient;
import org.apache.solr.common.cloud.ZkMaintenanceUtils;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * Solr 10 variant of the 9.x launcher's Zk (compiled instead of it for releases 10 and
 * later): SolrZkClient lost the retryOnConnLoss flags of exists, setData and create.
 *
 * Starts a standalone ZooKeeper server in this JVM on 127.0.0.1, uploads the configset as
 * "bench", optionally sets clusterprops urlScheme=https and /security.json (the file given with
 * --security-json: how SolrCloud turns on an authentication plugin, as `bin/solr zk cp` does),
 * writes the port and blocks until SIGTERM.
 *
 * <pre>
 * java -cp ... dev.solrbench.Zk --data-dir DIR --confdir configsets/bench/conf --port-file FILE
 *     [--port 0] [--tls true] [--tick-ms 1000] [--security-json FILE]
 * </pre>
 *
 * The data dir persists, so the ZK JVM can be restarted on the same port with its state.
 */
public final class Zk {
  public static void main(String[] argv) throws Exception {
    Args a;
    try {
      a = new Args(argv);
      a.require("data-dir");
      a.require("confdir");
      a.require("port-file");
    } catch (IllegalArgumentException e) {
      Args.die(2, e.getMessage());
      return;
    }
    File dataDir = new File(a.get("data-dir", null)).getAbsoluteFile();
    Path confDir = Path.of(a.get("confdir", null)).toAbsolutePath();
    Path portFile = Path.of(a.get("port-file", null)).toAbsolutePath();
    int port = a.getInt("port", 0);
    boolean tls = Boolean.parseBoolean(a.get("tls", "false"));
    int tick = a.getInt("tick-ms", 1000);
    String securityJson = a.get("security-json", null);

    ZooKeeperServer zks =
        new ZooKeeperServer(new File(dataDir, "snap"), new File(dataDir, "log"), tick);
    ServerCnxnFactory factory;
    try {
      factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", port), 200);
      factory.startup(zks);
    } catch (BindException e) {
      Args.die(2, "ZooKeeper port " + port + " on 127.0.0.1 is already in use");
      return;
    }
    int bound = factory.getLocalPort();
    String zkHost = "127.0.0.1:" + bound;

    try (SolrZkClient zk =
        new SolrZkClient.Builder().withUrl(zkHost).withTimeout(30, TimeUnit.SECONDS).build()) {
      ZkMaintenanceUtils.uploadToZK(zk, confDir, "/configs/bench", null);
      if (tls) {
        put(zk, "/clusterprops.json", "{\"urlScheme\":\"https\"}".getBytes(StandardCharsets.UTF_8));
      }
      if (securityJson != null) {
        put(zk, "/security.json", Files.readAllBytes(Path.of(securityJson)));
      }
    } catch (Exception e) {
      Args.die(2, "ZooKeeper configset upload failed: " + e);
    }

    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    factory.shutdown();
                    zks.shutdown();
                  } finally {
                    stopped.countDown();
                    Args.shutdownLogging();
                  }
                },
                "zk-shutdown"));
    Args.writePortFile(portFile, bound);
    System.err.println("started zookeeper " + zkHost);
    stopped.await();
  }

  /** Creates or replaces the znode {@code path} with {@code data}. */
  private static void put(SolrZkClient zk, String path, byte[] data) throws Exception {
    if (zk.exists(path)) {
      zk.setData(path, data);
    } else {
      zk.create(path, data, CreateMode.PERSISTENT);
    }
  }
}
