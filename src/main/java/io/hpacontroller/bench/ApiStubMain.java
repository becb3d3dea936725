package io.hpacontroller.bench;

/**
 * Runs the {@link ApiStub} in its own JVM, so that the controller's heap measured by {@code bench}
 * holds only the controller. Prints "PORT n" when listening, then answers "COUNTS" on stdin with the
 * request counts, and exits when stdin closes.
 */
public final class ApiStubMain {

    private ApiStubMain() {
    }

    public static void main(String[] args) throws Exception {
        int hpas = Integer.parseInt(args[0]);
        int podsPerHpa = Integer.parseInt(args[1]);
        try (ApiStub stub = new ApiStub(hpas, podsPerHpa)) {
            System.out.println("PORT " + stub.start());
            System.out.flush();
            java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("COUNTS")) {
                    StringBuilder sb = new StringBuilder("COUNTS");
                    stub.counts().forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
                    System.out.println(sb);
                    System.out.flush();
                }
            }
        }
    }
}
