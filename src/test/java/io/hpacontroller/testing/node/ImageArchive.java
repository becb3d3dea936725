package io.hpacontroller.testing.node;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A one-layer container image written as a {@code docker save} archive (manifest.json, the config, the
 * layer), which {@code ctr images import} and Jib's {@code tar://} base images read. No registry and no
 * Docker engine: the layer is a tar written here, every entry owned by root (unless given), dated 1970,
 * in name order, so the same files give the same image id.
 */
final class ImageArchive {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the layer holds: path (no leading slash) to entry. */
    private final Map<String, Entry> entries = new TreeMap<>();
    private final String reference;
    private final Map<String, Object> config = new LinkedHashMap<>();

    private sealed interface Entry permits Directory, RegularFile, Symlink {
    }

    private record Directory(int mode) implements Entry {
    }

    private record RegularFile(byte[] content, int mode) implements Entry {
    }

    private record Symlink(String target) implements Entry {
    }

    /** An image named {@code reference} (fully qualified, e.g. {@code registry.local/busybox:1.36}). */
    ImageArchive(String reference) {
        this.reference = reference;
        config.put("Env", new ArrayList<>(List.of("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")));
        config.put("WorkingDir", "/");
    }

    ImageArchive entrypoint(String... command) {
        config.put("Entrypoint", List.of(command));
        return this;
    }

    ImageArchive user(String user) {
        config.put("User", user);
        return this;
    }

    ImageArchive directory(String path, int mode) {
        addParents(path);
        entries.put(strip(path), new Directory(mode));
        return this;
    }

    ImageArchive file(String path, byte[] content, int mode) {
        addParents(path);
        entries.put(strip(path), new RegularFile(content, mode));
        return this;
    }

    ImageArchive symlink(String path, String target) {
        addParents(path);
        entries.put(strip(path), new Symlink(target));
        return this;
    }

    /**
     * A file of this machine at the same path in the image, with the symbolic links on its way (e.g.
     * {@code /lib64 -> usr/lib64} on a merged-/usr Debian) and their targets.
     */
    ImageArchive hostFile(Path file) {
        Path current = Path.of("/");
        for (Path part : file.toAbsolutePath().normalize()) {
            current = current.resolve(part);
            if (Files.isSymbolicLink(current)) {
                try {
                    Path target = Files.readSymbolicLink(current);
                    symlink(current.toString(), target.toString());
                    Path resolved = current.getParent().resolve(target).normalize();
                    // what follows the link lives under its target
                    return hostFile(resolved.resolve(current.relativize(file.toAbsolutePath().normalize())));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        try {
            return file(current.toString(), Files.readAllBytes(current), mode(current));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A file of this machine (its links followed) at {@code path} in the image, executable if it is here. */
    ImageArchive copy(Path hostFile, String path) {
        try {
            Path real = hostFile.toRealPath();
            return file(path, Files.readAllBytes(real), mode(real));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A directory of this machine, its files and links, under {@code into}. */
    ImageArchive hostTree(Path dir, String into) {
        try (var paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted()::iterator) {
                String target = into + "/" + dir.relativize(p);
                if (Files.isSymbolicLink(p)) {
                    symlink(target, Files.readSymbolicLink(p).toString());
                } else if (Files.isDirectory(p)) {
                    directory(target, 0755);
                } else {
                    file(target, Files.readAllBytes(p), mode(p));
                }
            }
            return this;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int mode(Path p) throws IOException {
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS);
        return perms.contains(PosixFilePermission.OWNER_EXECUTE) ? 0755 : 0644;
    }

    private void addParents(String path) {
        Path parent = Path.of(strip(path)).getParent();
        for (int i = 1; parent != null && i <= parent.getNameCount(); i++) {
            entries.putIfAbsent(parent.subpath(0, i).toString(), new Directory(0755));
        }
    }

    private static String strip(String path) {
        String p = path.replaceAll("^/+", "").replaceAll("/+$", "");
        if (p.isEmpty() || p.contains("..")) {
            throw new IllegalArgumentException("not a path inside an image: " + path);
        }
        return p;
    }

    /** Writes the archive. */
    void writeTo(Path archive) {
        try {
            byte[] layer = layer();
            String diffId = "sha256:" + sha256(layer);
            Map<String, Object> image = new LinkedHashMap<>();
            image.put("architecture", "amd64");
            image.put("os", "linux");
            image.put("created", "1970-01-01T00:00:00Z");
            image.put("config", config);
            image.put("rootfs", Map.of("type", "layers", "diff_ids", List.of(diffId)));
            byte[] configJson = JSON.writeValueAsBytes(image);
            String configName = sha256(configJson) + ".json";
            String layerName = diffId.substring("sha256:".length()) + "/layer.tar";
            byte[] manifest = JSON.writeValueAsBytes(List.of(Map.of("Config", configName, "RepoTags", List.of(reference), "Layers", List.of(layerName))));
            Files.createDirectories(archive.toAbsolutePath().getParent());
            try (OutputStream out = Files.newOutputStream(archive)) {
                Tar tar = new Tar(out);
                tar.directory(diffId.substring("sha256:".length()), 0755);
                tar.file(layerName, layer, 0644);
                tar.file(configName, configJson, 0644);
                tar.file("manifest.json", manifest, 0644);
                tar.finish();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private byte[] layer() throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Tar tar = new Tar(bytes);
        for (var e : entries.entrySet()) {
            if (e.getValue() instanceof Directory d) {
                tar.directory(e.getKey(), d.mode());
            } else if (e.getValue() instanceof RegularFile f) {
                tar.file(e.getKey(), f.content(), f.mode());
            } else if (e.getValue() instanceof Symlink s) {
                tar.symlink(e.getKey(), s.target());
            }
        }
        tar.finish();
        return bytes.toByteArray();
    }

    private static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A POSIX ustar writer: regular files, directories and symbolic links, owned by root, dated 1970. */
    private static final class Tar {
        private final OutputStream out;

        Tar(OutputStream out) {
            this.out = out;
        }

        void directory(String name, int mode) throws IOException {
            header(name + "/", 0, mode, '5', "");
        }

        void file(String name, byte[] content, int mode) throws IOException {
            header(name, content.length, mode, '0', "");
            out.write(content);
            out.write(new byte[(512 - content.length % 512) % 512]);
        }

        void symlink(String name, String target) throws IOException {
            header(name, 0, 0777, '2', target);
        }

        void finish() throws IOException {
            out.write(new byte[1024]);
            out.flush();
        }

        private void header(String name, long size, int mode, char type, String link) throws IOException {
            byte[] h = new byte[512];
            String prefix = "";
            if (name.length() > 100) { // ustar: the name's directories go to the 155-byte prefix
                int cut = name.lastIndexOf('/', name.length() - 2);
                while (cut > 155 || name.length() - cut - 1 > 100) {
                    cut = name.lastIndexOf('/', cut - 1);
                    if (cut < 0) {
                        throw new IllegalArgumentException("name too long for ustar: " + name);
                    }
                }
                prefix = name.substring(0, cut);
                name = name.substring(cut + 1);
            }
            if (link.length() > 100) {
                throw new IllegalArgumentException("link target too long for ustar: " + link);
            }
            put(h, 0, 100, name);
            put(h, 100, 8, octal(mode, 7));
            put(h, 108, 8, octal(0, 7));
            put(h, 116, 8, octal(0, 7));
            put(h, 124, 12, octal(size, 11));
            put(h, 136, 12, octal(0, 11));
            h[156] = (byte) type;
            put(h, 157, 100, link);
            put(h, 257, 6, "ustar");
            put(h, 263, 2, "00");
            put(h, 265, 32, "root");
            put(h, 297, 32, "root");
            put(h, 345, 155, prefix);
            for (int i = 148; i < 156; i++) {
                h[i] = ' ';
            }
            long sum = 0;
            for (byte b : h) {
                sum += b & 0xff;
            }
            put(h, 148, 8, octal(sum, 6) + "\0 ");
            out.write(h);
        }

        private static String octal(long value, int digits) {
            String s = Long.toOctalString(value);
            return "0".repeat(Math.max(0, digits - s.length())) + s;
        }

        private static void put(byte[] header, int offset, int length, String value) {
            byte[] b = value.getBytes(StandardCharsets.UTF_8);
            System.arraycopy(b, 0, header, offset, Math.min(length, b.length));
        }
    }
}
