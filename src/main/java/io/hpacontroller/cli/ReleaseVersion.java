package io.hpacontroller.cli;

import java.util.Optional;

/** The version of this build: the jar manifest's Implementation-Version, none when run from classes. */
final class ReleaseVersion {

    /** What a request says when the build has no version (run from classes, in development). */
    static final String DEVELOPMENT = "dev";

    private ReleaseVersion() {
    }

    static Optional<String> ofJar() {
        return Optional.ofNullable(Main.class.getPackage().getImplementationVersion());
    }

    /** The user agent of every API request: {@code hpa-controller/VERSION}, as operators see it in audit logs and APF. */
    static String userAgent() {
        return "hpa-controller/" + ofJar().orElse(DEVELOPMENT);
    }
}
