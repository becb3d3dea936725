package io.hpacontroller.bench;

import java.util.List;

/**
 * Runs the {@link ApiStub} in its own JVM, so that the controller's heap measured by {@code bench}
 * holds only the controller. Prints "PORT n" when listening, then answers on stdin: "COUNTS" with the
 * request counts by kind, "FIRST" with how many HPAs were queried and when the last of them first was
 * (epoch ms), "SERIES" with the metrics queries per second (epoch second=count), "PHANTOMS a,b view,a,b" by serving
 * members' Leases for a and b that publish that view ({@link ApiStub#phantomMembers}); it exits when stdin closes.
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
                StringBuilder sb = new StringBuilder(line);
                String[] words = line.split(" ");
                switch (words[0]) {
                    case "COUNTS" -> stub.counts().forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
                    case "FIRST" -> {
                        long[] first = stub.firstQueries();
                        sb.append(' ').append(first[0]).append(' ').append(first[1]);
                    }
                    case "SERIES" -> stub.queriesPerSecond().forEach((k, v) -> sb.append(' ').append(k).append('=').append(v));
                    case "PHANTOMS" -> {
                        if (words.length == 3) {
                            stub.phantomMembers(List.of(words[1].split(",")), List.of(words[2].split(",")));
                        } else {
                            sb.append(" unknown");
                        }
                    }
                    default -> sb.append(" unknown");
                }
                System.out.println(sb);
                System.out.flush();
            }
        }
    }
}
