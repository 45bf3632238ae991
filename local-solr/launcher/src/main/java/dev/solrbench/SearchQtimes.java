package dev.solrbench;

import org.apache.solr.client.solrj.SolrClient;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.impl.Http2SolrClient;
import org.apache.solr.client.solrj.impl.HttpJdkSolrClient;
import org.apache.solr.client.solrj.response.QueryResponse;

/**
 * Runs searches one after the other with a SolrJ client in its default set-up (javabin
 * responses) and prints what SolrJ itself read from each: the line {@code QTIME <status>
 * <qtime>} per search, in order. What {@code transport-bench watch} reads from the wire is
 * compared with these lines.
 *
 * <pre>
 * SearchQtimes http2|jdk URL COLLECTION QUERY N
 * </pre>
 *
 * <p>{@code http2}: {@code Http2SolrClient} (Jetty's client, HTTP/2 with prior knowledge on a
 * plain URL). {@code jdk}: {@code HttpJdkSolrClient} over HTTP/1.1 (the JDK's {@code
 * java.net.http} client). The client is closed before the program ends.
 */
public final class SearchQtimes {
  static SolrClient client(String kind, String url) {
    switch (kind) {
      case "http2":
        return new Http2SolrClient.Builder(url).build();
      case "jdk":
        return new HttpJdkSolrClient.Builder(url).useHttp1_1(true).build();
      default:
        throw new IllegalArgumentException("client kind " + kind + ": expected http2 or jdk");
    }
  }

  public static void main(String[] a) throws Exception {
    if (a.length != 5) {
      throw new IllegalArgumentException("usage: SearchQtimes http2|jdk URL COLLECTION QUERY N");
    }
    int n = Integer.parseInt(a[4]);
    try (SolrClient c = client(a[0], a[1])) {
      for (int i = 0; i < n; i++) {
        QueryResponse r = c.query(a[2], new SolrQuery(a[3]).setRows(10));
        System.out.println("QTIME " + r.getStatus() + " " + r.getQTime());
      }
    }
  }
}
