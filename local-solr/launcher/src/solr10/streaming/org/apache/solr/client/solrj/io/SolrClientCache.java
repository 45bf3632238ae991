package org.apache.solr.client.solrj.io;

import java.io.Closeable;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.solr.client.solrj.SolrClient;
import org.apache.solr.client.solrj.impl.CloudSolrClient;
import org.apache.solr.client.solrj.impl.HttpSolrClientBase;
import org.apache.solr.client.solrj.jetty.HttpJettySolrClient;
import org.apache.solr.common.AlreadyClosedException;
import org.apache.solr.common.util.URLUtil;

/**
 * The launcher's own SolrClientCache for Solr 10 (this registry serves no
 * solr-solrj-streaming 10.x; local-solr/solr.sh builds the module from the 9.10.1 sources with
 * this class in place of theirs). It has the members solr-core 10.0.0 calls: the constructors
 * (none, or the node's HttpSolrClientBase), setBasicAuthCredentials, setDefaultZKHost,
 * getCloudSolrClient, getHttpSolrClient and close. Clients are cached per URL or ZooKeeper host
 * and closed with the cache.
 */
public class SolrClientCache implements Closeable {
  private static final long MIN_TIMEOUT_MS = 60_000;

  private final Map<String, SolrClient> clients = new HashMap<>();
  private final HttpSolrClientBase shared;
  private String basicAuth;
  private String defaultZkHost;
  private boolean closed;

  /** A cache whose clients have their own HTTP client. */
  public SolrClientCache() {
    this(null);
  }

  /** A cache whose clients share the node's HTTP client (a Jetty one, when it is one). */
  public SolrClientCache(HttpSolrClientBase shared) {
    this.shared = shared;
  }

  /** "user:password" sent by the clients made after this call. */
  public synchronized void setBasicAuthCredentials(String credentials) {
    this.basicAuth = credentials;
  }

  /** The ZooKeeper host (chroot dropped) whose clients may use ZooKeeper ACLs. */
  public synchronized void setDefaultZKHost(String zkHost) {
    if (zkHost != null) {
      String host = zkHost.split("/")[0];
      defaultZkHost = host.isEmpty() ? null : host;
    }
  }

  /** The cached CloudSolrClient of zkHost, made and connected on first use. */
  public synchronized CloudSolrClient getCloudSolrClient(String zkHost) {
    ensureOpen();
    Objects.requireNonNull(zkHost, "ZooKeeper host cannot be null!");
    SolrClient cached = clients.get(zkHost);
    if (cached != null) return (CloudSolrClient) cached;
    CloudSolrClient.Builder builder = new CloudSolrClient.Builder(List.of(zkHost), Optional.empty());
    builder.canUseZkACLs(zkHost.split("/")[0].equals(defaultZkHost));
    builder.withHttpClientBuilder(httpBuilder(null));
    CloudSolrClient client = builder.build();
    try {
      client.connect();
    } catch (RuntimeException e) {
      closeQuietly(client);
      throw e;
    }
    clients.put(zkHost, client);
    return client;
  }

  /** The cached client of a base URL ("/solr") or of a core or collection URL. */
  public synchronized SolrClient getHttpSolrClient(String url) {
    ensureOpen();
    Objects.requireNonNull(url, "Url cannot be null!");
    SolrClient cached = clients.get(url);
    if (cached != null) return cached;
    SolrClient client = httpBuilder(url).build();
    clients.put(url, client);
    return client;
  }

  private HttpJettySolrClient.Builder httpBuilder(String url) {
    HttpJettySolrClient.Builder b;
    if (url == null || URLUtil.isBaseUrl(url)) {
      b = new HttpJettySolrClient.Builder(url);
    } else {
      b = new HttpJettySolrClient.Builder(URLUtil.extractBaseUrl(url));
      b.withDefaultCollection(URLUtil.extractCoreFromCoreUrl(url));
    }
    if (shared instanceof HttpJettySolrClient) {
      b.withHttpClient((HttpJettySolrClient) shared);
    } else {
      b.withConnectionTimeout(MIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    }
    b.withIdleTimeout(Math.max(MIN_TIMEOUT_MS, b.getIdleTimeoutMillis()), TimeUnit.MILLISECONDS);
    b.withOptionalBasicAuthCredentials(basicAuth);
    return b;
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    for (SolrClient c : clients.values()) closeQuietly(c);
    clients.clear();
  }

  private void ensureOpen() {
    if (closed) throw new AlreadyClosedException();
  }

  private static void closeQuietly(SolrClient c) {
    try {
      c.close();
    } catch (IOException | RuntimeException e) {
      // closing a cached client is best effort, as in Solr's own cache
    }
  }
}
