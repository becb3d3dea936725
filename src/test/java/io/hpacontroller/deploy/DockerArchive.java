package io.hpacontroller.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedInputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.zip.GZIPInputStream;

/**
 * A {@code docker save} archive read back (Jib's {@code buildTar}, {@code buildah push docker-archive:}): the image's
 * config and the files its layers leave, as "size sha256" by path, a symbolic link as the file it points to (Jib
 * copies what a link of the runtime points to, COPY keeps the link: a container reads the same bytes). Our own small
 * tar reader (ustar, GNU long names, PAX paths), as the test needs nothing else of a tar library.
 */
final class DockerArchive {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The image's {@code config} object (User, Entrypoint, Cmd, Env, WorkingDir, ...). */
    final JsonNode config;
    /** The regular files under the paths {@code files} selects, the last layer's version of each: path to "size sha256". */
    final Map<String, String> files = new TreeMap<>();

    DockerArchive(Path archive, Predicate<String> selected) {
        Map<String, byte[]> members = new HashMap<>();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(archive))) {
            readTar(in, (name, link, size, content) -> members.put(strip(name), content.readAllBytes()));
            JsonNode manifest = JSON.readTree(members.get("manifest.json")).get(0);
            config = JSON.readTree(members.get(manifest.get("Config").asText())).get("config");
            Map<String, String> links = new TreeMap<>();
            for (JsonNode layer : manifest.get("Layers")) {
                try (InputStream l = unzipped(members.get(layer.asText()))) {
                    readTar(l, (name, link, size, content) -> {
                        String path = strip(name);
                        if (selected.test(path) && link != null) {
                            links.put(path, Path.of("/" + path).resolveSibling(link).normalize().toString().substring(1));
                        } else if (selected.test(path)) {
                            files.put(path, size + " " + sha256(content));
                        }
                    });
                }
            }
            links.forEach((path, target) -> files.put(path, files.getOrDefault(target, "a link to " + target)));
        } catch (IOException e) {
            throw new UncheckedIOException(archive + ": " + e, e);
        }
    }

    private interface Member {
        /** {@code link}: a symbolic link's target, null for a regular file. */
        void read(String name, String link, long size, InputStream content) throws IOException;
    }

    private static InputStream unzipped(byte[] layer) throws IOException {
        InputStream in = new ByteArrayInputStream(layer);
        return layer.length > 2 && (layer[0] & 0xff) == 0x1f && (layer[1] & 0xff) == 0x8b ? new GZIPInputStream(in) : in;
    }

    /** Calls {@code member} for each regular file and symbolic link of the tar stream. */
    private static void readTar(InputStream in, Member member) throws IOException {
        String longName = null;
        byte[] header = new byte[512];
        while (in.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
            String name = text(header, 0, 100);
            String prefix = text(header, 345, 155);
            if (!prefix.isEmpty() && "ustar".equals(text(header, 257, 5))) {
                name = prefix + "/" + name;
            }
            long size = Long.parseLong(text(header, 124, 12).isEmpty() ? "0" : text(header, 124, 12), 8);
            char type = (char) header[156];
            byte[] content = in.readNBytes((int) size);
            in.skipNBytes((512 - size % 512) % 512);
            if (type == 'L') {
                longName = new String(content, StandardCharsets.UTF_8).replace("\0", "");
                continue;
            }
            if (type == 'x') {
                for (String record : new String(content, StandardCharsets.UTF_8).split("\n")) {
                    int eq = record.indexOf(" path=");
                    if (eq >= 0) {
                        longName = record.substring(eq + " path=".length());
                    }
                }
                continue;
            }
            if (longName != null) {
                name = longName;
                longName = null;
            }
            if (type == '0' || type == '\0') {
                member.read(name, null, size, new ByteArrayInputStream(content));
            } else if (type == '2') {
                member.read(name, text(header, 157, 100), 0, InputStream.nullInputStream());
            }
        }
    }

    private static String text(byte[] b, int offset, int length) {
        int end = offset;
        while (end < offset + length && b[end] != 0) {
            end++;
        }
        return new String(b, offset, end - offset, StandardCharsets.UTF_8).strip();
    }

    private static String strip(String name) {
        String n = name.startsWith("./") ? name.substring(2) : name;
        return n.startsWith("/") ? n.substring(1) : n;
    }

    private static String sha256(InputStream content) throws IOException {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(content.readAllBytes());
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
