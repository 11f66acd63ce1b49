package dev.pier.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;

/**
 * Draws Services converged (percent of N) over seconds since the controller was launched, one line
 * per run: Pier's solid, a peer's (upstream's service controller) dashed in the colour of the Pier
 * run it is compared with.
 */
final class ConvergencePlot {
  private static final Color[] COLORS = {
    new Color(0x1f77b4),
    new Color(0xd62728),
    new Color(0x2ca02c),
    new Color(0x9467bd),
    new Color(0xff7f0e),
    new Color(0x8c564b)
  };
  private static final int W = 900;
  private static final int H = 540;
  private static final int LEFT = 70;
  private static final int RIGHT = 30;
  private static final int TOP = 40;
  private static final int BOTTOM = 60;

  /**
   * One run's curve: seconds at which each Service converged, sorted, and the run's floor (0: no
   * floor line); {@code color} indexes the palette (-1: the series' position), {@code peer} draws
   * it dashed.
   */
  record Series(
      String label, int n, double[] seconds, double floorSeconds, int color, boolean peer) {
    Series(String label, int n, double[] seconds, double floorSeconds) {
      this(label, n, seconds, floorSeconds, -1, false);
    }
  }

  private ConvergencePlot() {}

  static void write(Path file, String title, List<Series> runs) throws IOException {
    System.setProperty("java.awt.headless", "true");
    double maxX = 1;
    for (Series s : runs) {
      if (s.seconds().length > 0) {
        maxX = Math.max(maxX, s.seconds()[s.seconds().length - 1]);
      }
      maxX = Math.max(maxX, s.floorSeconds());
    }
    maxX = niceCeil(maxX * 1.05);
    BufferedImage img = new BufferedImage(W, H, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, W, H);
    int pw = W - LEFT - RIGHT;
    int ph = H - TOP - BOTTOM;
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    for (int i = 0; i <= 10; i++) {
      int y = TOP + ph - ph * i / 10;
      g.setColor(new Color(0xe8e8e8));
      g.drawLine(LEFT, y, LEFT + pw, y);
      g.setColor(Color.DARK_GRAY);
      g.drawString((i * 10) + "%", LEFT - 40, y + 4);
    }
    double step = niceCeil(maxX / 10);
    for (double x = 0; x <= maxX + 1e-9; x += step) {
      int px = LEFT + (int) (pw * x / maxX);
      g.setColor(new Color(0xe8e8e8));
      g.drawLine(px, TOP, px, TOP + ph);
      g.setColor(Color.DARK_GRAY);
      g.drawString(format(x), px - 8, TOP + ph + 18);
    }
    g.setColor(Color.BLACK);
    g.drawRect(LEFT, TOP, pw, ph);
    g.drawString("seconds since the controller was launched", LEFT + pw / 2 - 120, H - 18);
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
    g.drawString(title, LEFT, 24);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    for (int r = 0; r < runs.size(); r++) {
      Series s = runs.get(r);
      Color c = COLORS[(s.color() >= 0 ? s.color() : r) % COLORS.length];
      BasicStroke line =
          s.peer()
              ? new BasicStroke(
                  2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {9f, 5f}, 0f)
              : new BasicStroke(2f);
      g.setColor(c);
      g.setStroke(line);
      int prevX = LEFT;
      int prevY = TOP + ph;
      double[] t = s.seconds();
      for (int i = 0; i < t.length; i++) {
        int px = LEFT + (int) (pw * t[i] / maxX);
        int py = TOP + ph - (int) ((long) ph * (i + 1) / s.n());
        g.drawLine(prevX, prevY, px, prevY);
        g.drawLine(px, prevY, px, py);
        prevX = px;
        prevY = py;
      }
      if (s.floorSeconds() > 0) {
        int fx = LEFT + (int) (pw * s.floorSeconds() / maxX);
        g.setStroke(
            new BasicStroke(
                1f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 1f, new float[] {5f, 4f}, 0f));
        g.drawLine(fx, TOP, fx, TOP + ph);
      }
      g.setStroke(line);
      int ly = TOP + ph - 20 - 18 * (runs.size() - 1 - r);
      g.drawLine(LEFT + pw - 390, ly - 4, LEFT + pw - 365, ly - 4);
      g.setColor(Color.BLACK);
      g.drawString(s.label(), LEFT + pw - 358, ly);
    }
    g.setColor(Color.DARK_GRAY);
    g.drawString("thin dashed: the run's floor (the two writes alone)", LEFT + 8, TOP + 16);
    if (runs.stream().anyMatch(Series::peer)) {
      g.drawString(
          "thick dashed: upstream's service controller (Kubernetes 1.37.2)", LEFT + 8, TOP + 32);
    }
    g.dispose();
    Files.createDirectories(file.toAbsolutePath().getParent());
    ImageIO.write(img, "png", file.toFile());
  }

  private static String format(double x) {
    return x == Math.rint(x) ? String.valueOf((long) x) : String.format("%.1f", x);
  }

  private static double niceCeil(double x) {
    double p = Math.pow(10, Math.floor(Math.log10(x)));
    for (double m : new double[] {1, 2, 2.5, 5, 10}) {
      if (m * p >= x) {
        return m * p;
      }
    }
    return 10 * p;
  }
}
