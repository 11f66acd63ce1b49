package dev.pier.federation;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A Kubernetes label selector in its string form: comma-separated requirements, all of which must
 * hold. A requirement is {@code k=v}, {@code k==v}, {@code k!=v}, {@code k in (a,b)}, {@code k
 * notin (a,b)}, {@code k} (the label exists) or {@code !k} (it does not). As in Kubernetes, {@code
 * !=} and {@code notin} also hold when the label is missing. The empty selector selects everything.
 */
public final class LabelSelector {
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final int MAX_NAME = 63;
  private static final int MAX_PREFIX = 253;

  enum Operator {
    EQUALS,
    NOT_EQUALS,
    IN,
    NOT_IN,
    EXISTS,
    DOES_NOT_EXIST
  }

  record Requirement(String key, Operator operator, Set<String> values) {
    boolean matches(Map<String, String> labels) {
      boolean has = labels.containsKey(key);
      String v = labels.get(key);
      return switch (operator) {
        case EQUALS, IN -> has && values.contains(v);
        case NOT_EQUALS, NOT_IN -> !has || !values.contains(v);
        case EXISTS -> has;
        case DOES_NOT_EXIST -> !has;
      };
    }
  }

  private final String text;
  private final List<Requirement> requirements;

  private LabelSelector(String text, List<Requirement> requirements) {
    this.text = text;
    this.requirements = List.copyOf(requirements);
  }

  /**
   * @throws IllegalArgumentException naming the part of {@code text} that is not a selector
   */
  public static LabelSelector parse(String text) {
    String t = text == null ? "" : text;
    return new LabelSelector(t, new Parser(t).parse());
  }

  public boolean matches(Map<String, String> labels) {
    Map<String, String> l = labels == null ? Map.of() : labels;
    return requirements.stream().allMatch(r -> r.matches(l));
  }

  /** True for the selector that selects everything. */
  public boolean isEmpty() {
    return requirements.isEmpty();
  }

  List<Requirement> requirements() {
    return requirements;
  }

  @Override
  public String toString() {
    return text;
  }

  private enum Kind {
    IDENTIFIER,
    EQUALS,
    DOUBLE_EQUALS,
    NOT_EQUALS,
    NOT,
    OPEN,
    CLOSE,
    COMMA,
    UNSUPPORTED,
    END
  }

  private record Token(Kind kind, String text) {
    String describe() {
      return kind == Kind.END ? "the end" : "'" + text + "'";
    }
  }

  private static final class Parser {
    private final String text;
    private final List<Token> tokens;
    private int next;

    Parser(String text) {
      this.text = text;
      this.tokens = lex(text);
      for (Token t : tokens) {
        if (t.kind() == Kind.UNSUPPORTED) {
          throw fail("unsupported character or operator '" + t.text() + "'");
        }
      }
    }

    List<Requirement> parse() {
      List<Requirement> out = new ArrayList<>();
      if (peek().kind() == Kind.END) {
        return out;
      }
      while (true) {
        out.add(requirement());
        Token t = take();
        if (t.kind() == Kind.END) {
          return out;
        }
        if (t.kind() != Kind.COMMA) {
          throw fail("expected ',' or the end after a requirement, found " + t.describe());
        }
        if (peek().kind() == Kind.END) {
          throw fail("a trailing ',' with no requirement after it");
        }
      }
    }

    private Requirement requirement() {
      Token t = take();
      if (t.kind() == Kind.NOT) {
        Token key = take();
        if (key.kind() != Kind.IDENTIFIER) {
          throw fail("expected a label key after '!', found " + key.describe());
        }
        return new Requirement(key(key.text()), Operator.DOES_NOT_EXIST, Set.of());
      }
      if (t.kind() != Kind.IDENTIFIER) {
        throw fail("expected a label key, found " + t.describe());
      }
      String key = key(t.text());
      Token op = peek();
      switch (op.kind()) {
        case END, COMMA:
          return new Requirement(key, Operator.EXISTS, Set.of());
        case EQUALS, DOUBLE_EQUALS, NOT_EQUALS:
          take();
          Operator o = op.kind() == Kind.NOT_EQUALS ? Operator.NOT_EQUALS : Operator.EQUALS;
          return new Requirement(key, o, Set.of(exactValue(op)));
        case IDENTIFIER:
          if (op.text().equals("in") || op.text().equals("notin")) {
            take();
            Operator set = op.text().equals("in") ? Operator.IN : Operator.NOT_IN;
            return new Requirement(key, set, values(op));
          }
          throw fail(
              "expected an operator (=, ==, !=, in, notin) after '"
                  + key
                  + "', found "
                  + op.describe());
        default:
          throw fail(
              "expected an operator (=, ==, !=, in, notin) after '"
                  + key
                  + "', found "
                  + op.describe());
      }
    }

    private String exactValue(Token op) {
      Token v = peek();
      if (v.kind() == Kind.END || v.kind() == Kind.COMMA) {
        return "";
      }
      if (v.kind() != Kind.IDENTIFIER) {
        throw fail("expected a value after '" + op.text() + "', found " + v.describe());
      }
      take();
      return value(v.text());
    }

    private Set<String> values(Token op) {
      Token open = take();
      if (open.kind() != Kind.OPEN) {
        throw fail("expected '(' after '" + op.text() + "', found " + open.describe());
      }
      Set<String> values = new TreeSet<>();
      while (true) {
        Token v = take();
        if (v.kind() != Kind.IDENTIFIER) {
          throw fail(
              "expected a value in the list after '" + op.text() + "', found " + v.describe());
        }
        values.add(value(v.text()));
        Token after = take();
        if (after.kind() == Kind.CLOSE) {
          return Set.copyOf(values);
        }
        if (after.kind() != Kind.COMMA) {
          throw fail(
              "expected ',' or ')' in the list after '"
                  + op.text()
                  + "', found "
                  + after.describe());
        }
      }
    }

    private String key(String k) {
      int slash = k.indexOf('/');
      String name = slash < 0 ? k : k.substring(slash + 1);
      String prefix = slash < 0 ? null : k.substring(0, slash);
      boolean ok =
          name.length() <= MAX_NAME
              && NAME.matcher(name).matches()
              && (prefix == null
                  || (prefix.length() <= MAX_PREFIX && DNS_SUBDOMAIN.matcher(prefix).matches()));
      if (!ok) {
        throw fail(
            "'"
                + k
                + "' is not a label key ([prefix/]name: a name of at most 63 letters, digits,"
                + " '-', '_' or '.' that starts and ends with a letter or digit)");
      }
      return k;
    }

    private String value(String v) {
      if (v.length() > MAX_NAME || !NAME.matcher(v).matches()) {
        throw fail(
            "'"
                + v
                + "' is not a label value (at most 63 letters, digits, '-', '_' or '.' that"
                + " starts and ends with a letter or digit)");
      }
      return v;
    }

    private Token peek() {
      return tokens.get(next);
    }

    private Token take() {
      Token t = tokens.get(next);
      if (t.kind() != Kind.END) {
        next++;
      }
      return t;
    }

    private IllegalArgumentException fail(String problem) {
      return new IllegalArgumentException("label selector '" + text + "': " + problem);
    }

    private static List<Token> lex(String s) {
      List<Token> out = new ArrayList<>();
      int i = 0;
      while (i < s.length()) {
        char c = s.charAt(i);
        if (Character.isWhitespace(c)) {
          i++;
        } else if (c == '=' && i + 1 < s.length() && s.charAt(i + 1) == '=') {
          out.add(new Token(Kind.DOUBLE_EQUALS, "=="));
          i += 2;
        } else if (c == '!' && i + 1 < s.length() && s.charAt(i + 1) == '=') {
          out.add(new Token(Kind.NOT_EQUALS, "!="));
          i += 2;
        } else if (c == '=') {
          out.add(new Token(Kind.EQUALS, "="));
          i++;
        } else if (c == '!') {
          out.add(new Token(Kind.NOT, "!"));
          i++;
        } else if (c == '(') {
          out.add(new Token(Kind.OPEN, "("));
          i++;
        } else if (c == ')') {
          out.add(new Token(Kind.CLOSE, ")"));
          i++;
        } else if (c == ',') {
          out.add(new Token(Kind.COMMA, ","));
          i++;
        } else if (c == '<' || c == '>') {
          out.add(new Token(Kind.UNSUPPORTED, String.valueOf(c)));
          i++;
        } else {
          int start = i;
          while (i < s.length() && !Character.isWhitespace(s.charAt(i)) && !special(s.charAt(i))) {
            i++;
          }
          out.add(new Token(Kind.IDENTIFIER, s.substring(start, i)));
        }
      }
      out.add(new Token(Kind.END, ""));
      return out;
    }

    private static boolean special(char c) {
      return "=!(),<>".indexOf(c) >= 0;
    }
  }
}
