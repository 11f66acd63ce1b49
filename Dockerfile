# Pier's image: the fat jar built by Maven, run by a JRE as a non-root user, with no shell.
#   docker build -t pier:0.9.0 --build-arg REVISION="$(git rev-parse --short HEAD)" .
# Base images are pinned to exact versions (DockerfileTest checks it); bump them deliberately.
FROM maven:3.9.9-eclipse-temurin-17 AS build
# The build context has no .git: the revision comes in as an argument.
ARG REVISION=unknown
WORKDIR /src
COPY pom.xml .
RUN mvn -B -q dependency:go-offline
COPY src ./src
# Tests need a kube-apiserver; run them with scripts/test.sh outside the image build.
RUN mvn -B -q -DskipTests -Dspotless.apply.skip=true -Dpier.revision="${REVISION}" package

FROM eclipse-temurin:17.0.13_11-jre
ARG VERSION=0.9.0
ARG REVISION=unknown
LABEL org.opencontainers.image.title="pier" \
      org.opencontainers.image.description="A reactive Kubernetes service controller: load balancers for LoadBalancer Services" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.licenses="Apache-2.0"
RUN groupadd --system --gid 10001 pier \
    && useradd --system --uid 10001 --gid pier --home-dir /nonexistent --no-create-home pier
COPY --from=build /src/target/pier.jar /opt/pier/pier.jar
# Pier's one set of JVM flags (conf/jvm.options), shared with the Kubernetes manifests, which set none.
COPY conf/jvm.options /opt/pier/jvm.options
COPY conf/pier.yaml /etc/pier/pier.yaml
# The class-data sharing archive, dumped by this image's own JVM for the jar at its final path (an
# archive is only valid for the JVM build and the jar path it was made with).
COPY src/main/cds/pier.classlist /opt/pier/pier.classlist
RUN java -Xshare:dump -XX:SharedClassListFile=/opt/pier/pier.classlist \
      -XX:SharedArchiveFile=/opt/pier/pier.jsa -cp /opt/pier/pier.jar > /dev/null \
    && java -Xshare:on -XX:SharedArchiveFile=/opt/pier/pier.jsa -jar /opt/pier/pier.jar --version
# No shell and no interpreter: a kubeconfig exec plugin runs through sh -c, and any command Pier
# were made to run would need one. Member Secrets already refuse exec plugins (docs/federation.md);
# this is the wall behind that one. Debug with an ephemeral container (kubectl debug). Exec form:
# this RUN needs no shell itself, and nothing after it needs one.
RUN ["/usr/bin/find", "/usr/bin", "/bin", "-maxdepth", "1", "(", "-name", "sh", "-o", "-name", "dash", "-o", "-name", "bash", "-o", "-name", "rbash", "-o", "-name", "perl*", ")", "-delete"]
USER 10001:10001
EXPOSE 9080
ENTRYPOINT ["java", "@/opt/pier/jvm.options", "-XX:SharedArchiveFile=/opt/pier/pier.jsa", "-jar", "/opt/pier/pier.jar"]
CMD ["--config", "/etc/pier/pier.yaml"]
