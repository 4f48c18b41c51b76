<?xml version="1.0"?>
<!-- Grouping, Muenchian method: books by author, and within an author by genre (a compound key). -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" indent="no" omit-xml-declaration="yes"/>
  <xsl:key name="by-author" match="book" use="author"/>
  <xsl:key name="by-author-genre" match="book" use="concat(author, '|', @genre)"/>
  <xsl:key name="by-keyword-count" match="book" use="string-length(normalize-space(keywords)) &gt; 20"/>
  <xsl:template match="/catalog">
    <authors catalog="{@id}">
      <xsl:for-each select="book[generate-id() = generate-id(key('by-author', author)[1])]">
        <xsl:sort select="author" data-type="text" lang="en"/>
        <xsl:variable name="mine" select="key('by-author', author)"/>
        <author name="{author}" books="{count($mine)}" value="{format-number(sum($mine/price), '0.00')}"
                first-year="{$mine[not(../book[author = current()/author]/@year &lt; @year)][1]/@year}">
          <xsl:for-each select="$mine[generate-id() = generate-id(key('by-author-genre', concat(author, '|', @genre))[1])]">
            <xsl:sort select="@genre" data-type="text" lang="en"/>
            <xsl:variable name="g" select="key('by-author-genre', concat(author, '|', @genre))"/>
            <genre name="{@genre}" n="{count($g)}">
              <xsl:for-each select="$g">
                <xsl:sort select="title" data-type="text" lang="en"/>
                <xsl:sort select="@id" data-type="text" lang="en"/>
                <t id="{@id}"><xsl:value-of select="title"/></t>
              </xsl:for-each>
            </genre>
          </xsl:for-each>
        </author>
      </xsl:for-each>
      <long-keywords n="{count(key('by-keyword-count', 'true'))}"/>
    </authors>
  </xsl:template>
</xsl:stylesheet>
