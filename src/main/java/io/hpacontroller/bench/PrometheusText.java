package io.hpacontroller.bench;

/** Reads samples out of the Prometheus text format of a controller's /metrics. */
final class PrometheusText {

    private PrometheusText() {
    }

    /**
     * The sum of the samples of {@code name} whose labels contain {@code label} (e.g. {@code area="heap"};
     * empty for all), 0 when there are none or the text is null.
     */
    static double sum(String text, String name, String label) {
        if (text == null) {
            return 0;
        }
        double sum = 0;
        for (String line : text.split("\n")) {
            if (!line.startsWith(name) || line.length() == name.length()) {
                continue;
            }
            char next = line.charAt(name.length());
            if (next != '{' && next != ' ') {
                continue; // another metric whose name starts with this one
            }
            int space = line.lastIndexOf(' ');
            String labels = line.substring(name.length(), space);
            if (!label.isEmpty() && !labels.contains(label)) {
                continue;
            }
            try {
                sum += Double.parseDouble(line.substring(space + 1));
            } catch (NumberFormatException e) {
                // a sample with a timestamp or an odd value: not ours
            }
        }
        return sum;
    }
}
