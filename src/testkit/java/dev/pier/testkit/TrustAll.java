package dev.pier.testkit;

import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Trusts any certificate: for test clients of throwaway servers, and for tests that check whether a
 * server accepts a client (not whether the client accepts the server).
 */
public final class TrustAll extends X509ExtendedTrustManager {
  /** A TLS context that presents {@code keys} (none when null) and trusts any peer. */
  public static SSLContext context(KeyManager[] keys) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys, new TrustManager[] {new TrustAll()}, new SecureRandom());
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {}

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {}

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
