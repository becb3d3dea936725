package io.hpacontroller.deploy;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Every in-page link of the README (the table of contents and the cross-references) leads to a heading. */
class ReadmeLinksTest {

    @Test
    void everyAnchorIsAHeading() {
        String readme = Manifests.read(Path.of("README.md"));
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean inCode = false;
        for (String line : readme.lines().toList()) {
            if (line.startsWith("```")) {
                inCode = !inCode;
            }
            if (!inCode && line.matches("#{1,6} .*")) {
                String slug = slug(line.replaceFirst("#{1,6} ", ""));
                int n = seen.merge(slug, 1, Integer::sum);
                anchors.add(n == 1 ? slug : slug + "-" + (n - 1));
            }
        }
        List<String> links = new ArrayList<>();
        Matcher m = Pattern.compile("\\]\\(#([^)]+)\\)").matcher(readme);
        while (m.find()) {
            links.add(m.group(1));
        }

        assertThat(links).hasSizeGreaterThan(30);
        assertThat(links).allSatisfy(link -> assertThat(anchors).as("a heading for #%s", link).contains(link));
    }

    /** GitHub's heading anchor: lower case, punctuation dropped, spaces as hyphens. */
    static String slug(String heading) {
        return heading.toLowerCase().replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }
}
