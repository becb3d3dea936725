package io.hpacontroller.deploy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every link between the README, CONTRIBUTING.md and the pages of docs/ (the tables of contents and the
 * cross-references, in-page or to another page) leads to a heading of the page it names.
 */
class ReadmeLinksTest {

    @Test
    void everyAnchorIsAHeading() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md"), Path.of("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(Path.of("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> links = new ArrayList<>();
        Map<Path, Set<String>> anchorsOf = new HashMap<>();
        for (Path page : pages) {
            String text = Manifests.read(page);
            Matcher m = Pattern.compile("\\]\\(([^)#]*)#([^)]+)\\)").matcher(text);
            while (m.find()) {
                Path target = m.group(1).isEmpty() ? page : page.resolveSibling(m.group(1)).normalize();
                String link = page + " -> " + target + "#" + m.group(2);
                links.add(link);
                assertThat(target).as("the page of %s", link).exists();
                Set<String> anchors = anchorsOf.computeIfAbsent(target, t -> anchors(Manifests.read(t)));
                assertThat(anchors).as("a heading for %s", link).contains(m.group(2));
            }
        }

        assertThat(links).hasSizeGreaterThan(30);
    }

    /** The anchors of a page's headings, numbered as GitHub numbers repeated ones. */
    private static Set<String> anchors(String page) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : page.lines().toList()) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            if (!inCode && line.matches("#{1,6} .*")) {
                String slug = slug(line.replaceFirst("#{1,6} ", ""));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        return anchors;
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        return heading.toLowerCase().replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
