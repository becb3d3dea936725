# The image Jib builds in `mvn verify` (pom.xml, jib-maven-plugin), for Docker and Podman. Build the jar, the
# linked runtime and the class-data archive first, then the image:
#
#   mvn -B -DskipTests verify            # writes target/image/runtime and target/image/app
#   docker build -t hpa-controller .     # or: podman build -t hpa-controller .
#
# BASE is the release's base; the tests build from the local base Jib uses here
# (--build-arg BASE=docker-archive:target/image/host-base.tar) and check that both images agree (DockerfileIT).
# The base has no shell: no RUN step.
ARG BASE=gcr.io/distroless/cc-debian12:nonroot
FROM ${BASE}

COPY target/image/runtime /opt/java
COPY target/image/app/hpa-controller.jar target/image/app/hpa-controller.jsa /app/

# In the environment, not the entrypoint, so that the chart's jvmOptions replace them (pom.xml's image.jvmOptions).
ENV JAVA_HOME=/opt/java \
    JDK_JAVA_OPTIONS="-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -Xms32m -Xmn8m -XX:MinHeapFreeRatio=20 -XX:MaxHeapFreeRatio=40 -Xss256k -XX:MaxMetaspaceSize=64m -XX:ReservedCodeCacheSize=32m -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError -Djava.io.tmpdir=/tmp"
WORKDIR /app
# a numeric non-root user, the pod's runAsUser
USER 65532:65532
EXPOSE 8080 8081
LABEL org.opencontainers.image.title=hpa-controller \
      org.opencontainers.image.source=https://github.com/hpa-controller/hpa-controller \
      org.opencontainers.image.licenses=Apache-2.0
ENTRYPOINT ["/opt/java/bin/java", "-XX:SharedArchiveFile=/app/hpa-controller.jsa", "-Xshare:auto", "-jar", "hpa-controller.jar"]
CMD ["run"]
