package dev.pier;

public final class Main {
  public static void main(String[] args) {}
}
