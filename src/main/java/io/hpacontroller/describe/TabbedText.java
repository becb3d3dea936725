package io.hpacontroller.describe;

import java.util.ArrayList;
import java.util.List;

/**
 * Text written as kubectl's describers write it: through a {@code PrefixWriter} (each write starts with two spaces per
 * level) into Go's {@code text/tabwriter} set up as kubectl's {@code tabbedString} sets it (min width 0, padding 2,
 * spaces, cells aligned left). Our own, for parity: Go's tabwriter aligns a column over a block of consecutive lines
 * that have that cell and starts a new block at a line that has not, which no Java formatter does.
 */
final class TabbedText {

    private static final int PADDING = 2;

    private final StringBuilder done = new StringBuilder();
    private final StringBuilder pending = new StringBuilder();

    /** A write at a level: the level's prefix, then the text (tabs end cells, newlines end lines). */
    TabbedText write(int level, String text) {
        pending.append("  ".repeat(level)).append(text);
        return this;
    }

    /** Aligns what was written since the last flush; later lines are aligned on their own. */
    void flush() {
        List<String[]> lines = new ArrayList<>();
        for (String line : pending.toString().split("\n", -1)) {
            lines.add(line.split("\t", -1));
        }
        pending.setLength(0);
        format(lines, new ArrayList<>(), 0, lines.size());
        done.setLength(done.length() - 1); // the newline after the last (unterminated, usually empty) line
    }

    /** Everything written, aligned. */
    String text() {
        flush();
        return done.toString();
    }

    /** Go's {@code format}: the block of lines [from, to) that have a cell in column {@code widths.size()}. */
    private void format(List<String[]> lines, List<Integer> widths, int from, int to) {
        int column = widths.size();
        int start = from;
        for (int line = from; line < to; line++) {
            if (column >= lines.get(line).length - 1) {
                continue;
            }
            writeLines(lines, widths, start, line);
            start = line;
            int width = 0;
            for (; line < to && column < lines.get(line).length - 1; line++) {
                width = Math.max(width, cellWidth(lines.get(line)[column]) + PADDING);
            }
            widths.add(width);
            format(lines, widths, start, line);
            widths.remove(widths.size() - 1);
            start = line;
            line--; // the loop's increment: look at the line that ended the block again
        }
        writeLines(lines, widths, start, to);
    }

    private void writeLines(List<String[]> lines, List<Integer> widths, int from, int to) {
        for (int i = from; i < to; i++) {
            String[] cells = lines.get(i);
            for (int j = 0; j < cells.length; j++) {
                done.append(cells[j]);
                if (j < widths.size() && j < cells.length - 1) {
                    done.append(" ".repeat(widths.get(j) - cellWidth(cells[j])));
                }
            }
            done.append('\n');
        }
    }

    private static int cellWidth(String cell) {
        return cell.codePointCount(0, cell.length());
    }
}
