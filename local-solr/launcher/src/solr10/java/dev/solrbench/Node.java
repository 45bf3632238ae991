package dev.solrbench;

import java.net.BindException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.solr.client.solrj.jetty.SSLConfig;
import org.apache.solr.core.CoreContainer;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NegotiatingServerConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.handler.gzip.GzipHandler;

/**
 * Solr 10 variant of the 9.x launcher's Node (compiled instead of it for releases 10 and
 * later): Jetty 12 (Handler.Wrapper instead of HandlerWrapper), SSLConfig moved to
 * org.apache.solr.client.solrj.jetty, and the context is always /solr (no setContext).
 *
 * Starts ONE real Solr node (Jetty + CoreContainer, the code of the Solr distribution) in this
 * JVM and blocks until the JVM is asked to stop (SIGTERM: the shutdown hook stops Jetty and
 * Solr cleanly).
 *
 * <pre>
 * java -cp ... dev.solrbench.Node --home DIR --port-file FILE
 *     [--port 0]                          0 = any free port (127.0.0.1 only)
 *     [--keystore server.p12 --keystore-password-file FILE]   enables TLS (h2 + http/1.1 via ALPN)
 *     [--client-auth-truststore truststore.p12]   with TLS: Jetty needs a client certificate
 *                                         signed by a CA in this store (same password)
 *     [--idle-timeout-ms 120000]          connector idle timeout (Solr distribution default)
 *     [--gzip-inflate-buffer 0]           &gt;0: accept gzip-encoded request bodies
 *     [--zk-host 127.0.0.1:PORT]          SolrCloud mode; absent = standalone
 * </pre>
 *
 * Other Solr settings are plain JVM system properties (-Dsolr.autoCommit.maxTime=..., ...).
 * Exit codes: 2 = bad arguments or Jetty failed to start (e.g. port in use), 3 = a core failed
 * to load. The reason is printed as one "FATAL: ..." line on stderr.
 */
public final class Node {
  // Read by injectJettyHandlers(), which runs inside the JettySolrRunner constructor, i.e.
  // before any subclass instance field would be initialised: hence static.
  static volatile int idleTimeoutMs = 120_000;
  static volatile int inflateBufferSize = 0;

  /** JettySolrRunner with gzip for POST responses and a configurable idle timeout. */
  static final class Runner extends JettySolrRunner {
    Runner(String home, Properties props, JettyConfig cfg) {
      super(home, props, cfg);
    }

    @Override
    protected Handler.Wrapper injectJettyHandlers(Handler.Wrapper chain) {
      for (Connector c : chain.getServer().getConnectors()) {
        ServerConnector sc = (ServerConnector) c;
        sc.setIdleTimeout(idleTimeoutMs);
        // JettySolrRunner registers ALPN protocols as "h2" and "HTTP/1.1"; ALPN matching is
        // case-sensitive, so a client offering only "http/1.1" (an HTTP/1-only TLS client) got
        // "no_application_protocol". Re-register with the RFC 7301 id.
        // (getNegotiatedProtocols() is the factory's live, mutable list.)
        if (sc.getConnectionFactory("alpn") instanceof NegotiatingServerConnectionFactory) {
          NegotiatingServerConnectionFactory alpn =
              (NegotiatingServerConnectionFactory) sc.getConnectionFactory("alpn");
          alpn.getNegotiatedProtocols().replaceAll(p -> p.equalsIgnoreCase("http/1.1") ? "http/1.1" : p);
          alpn.setDefaultProtocol("http/1.1");
        }
      }
      // The runner's own outer GzipHandler only covers GET. Jetty skips a GzipHandler when an
      // outer one already intercepts the response, so GET stays with the outer one and this one
      // handles POST (e.g. /select with form parameters).
      GzipHandler gzip = new GzipHandler();
      gzip.setIncludedMethods("POST");
      gzip.setMinGzipSize(23);
      gzip.setInflateBufferSize(inflateBufferSize);
      gzip.setHandler(chain);
      return gzip;
    }
  }

  public static void main(String[] argv) throws Exception {
    Args a;
    try {
      a = new Args(argv);
      a.require("home");
      a.require("port-file");
    } catch (IllegalArgumentException e) {
      Args.die(2, e.getMessage());
      return;
    }
    Path home = Path.of(a.get("home", null)).toAbsolutePath();
    Path portFile = Path.of(a.get("port-file", null)).toAbsolutePath();
    int port = a.getInt("port", 0);
    idleTimeoutMs = a.getInt("idle-timeout-ms", 120_000);
    inflateBufferSize = a.getInt("gzip-inflate-buffer", 0);

    String zkHost = a.get("zk-host", null);
    if (zkHost != null) System.setProperty("zkHost", zkHost);

    JettyConfig.Builder cfg =
        JettyConfig.builder()
            .setPort(port)
            .stopAtShutdown(false) // our shutdown hook stops the runner (and Solr) instead
            .useOnlyHttp1(false)
            .withPortRetryTime(0); // default retries a busy port for 60 s, then fails obscurely
    String keystore = a.get("keystore", null);
    if (keystore != null) {
      String pw = Files.readString(Path.of(a.require("keystore-password-file")), StandardCharsets.UTF_8).trim();
      // JettySolrRunner only builds a TLS connector in "test mode".
      System.setProperty("jetty.testMode", "true");
      // Client auth: what SOLR_SSL_NEED_CLIENT_AUTH=true does in the distribution's Jetty.
      String clientTrust = a.get("client-auth-truststore", null);
      cfg.withSSLConfig(
          new SSLConfig(true, clientTrust != null, keystore, pw, clientTrust, clientTrust == null ? null : pw));
    }

    Runner runner = new Runner(home.toString(), new Properties(), cfg.build());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    if (runner.isRunning()) runner.stop();
                  } catch (Throwable t) {
                    t.printStackTrace();
                  } finally {
                    stopped.countDown();
                    Args.shutdownLogging();
                  }
                },
                "solr-node-shutdown"));

    try {
      runner.start();
    } catch (Exception e) {
      Throwable root = e;
      while (root.getCause() != null && !(root instanceof BindException)) root = root.getCause();
      if (root instanceof BindException) {
        Args.die(2, "port " + port + " on 127.0.0.1 is already in use (" + root.getMessage() + ")");
      }
      Args.die(2, "Jetty/Solr failed to start: " + root);
    }
    if (!runner.isRunning()) Args.die(2, "Jetty/Solr is not running after start()");

    // start() does not throw when a core fails to load: check it here.
    CoreContainer cc = runner.getCoreContainer();
    if (cc == null) Args.die(2, "Solr CoreContainer failed to initialise (see solr.log)");
    for (Map.Entry<String, CoreContainer.CoreLoadFailure> f : cc.getCoreInitFailures().entrySet()) {
      Throwable root = f.getValue().exception;
      while (root.getCause() != null) root = root.getCause();
      Args.die(3, "core '" + f.getKey() + "' failed to load: " + String.valueOf(root.getMessage()).replace('\n', ' '));
    }

    Args.writePortFile(portFile, runner.getLocalPort());
    System.err.println("started " + runner.getBaseUrl());
    stopped.await();
  }
}
